"""Public: explicit Inductor fallbacks for whole namespaces (see ``oracles.lint.fallbacks``)."""

from torch_conformance.oracles.lint.fallbacks import register_fallbacks

__all__ = ["register_fallbacks"]
