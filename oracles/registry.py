"""Public: explicit Inductor fallbacks for whole namespaces (see ``oracles.lint.registry``)."""

from oracles.lint.registry import register_fallbacks

__all__ = ["register_fallbacks"]
