"""Public: a kernel's declared domain (see ``oracles.core.domain``)."""

from oracles.core.domain import Domain, edge_cases

__all__ = ["Domain", "edge_cases"]
