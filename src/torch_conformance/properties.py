"""Public: the batches a spec without ``batches`` gets (see ``oracles.strategies.batches``)."""

from torch_conformance.oracles.strategies.batches import derived_batches

__all__ = ["derived_batches"]
