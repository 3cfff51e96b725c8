"""Public: a kernel's declared domain (see ``oracles.core.kernel_domain``)."""

from torch_conformance.oracles.core.kernel_domain import Domain, edge_cases

__all__ = ["Domain", "edge_cases"]
