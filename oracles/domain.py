"""Public: a kernel's declared domain (see ``oracles.core.domain``)."""

from oracles.core.domain import Domain

__all__ = ["Domain"]
