"""The collective family's reference: every rank's x, concatenated."""

from __future__ import annotations

import torch

from torch_conformance.families.collective.ops import tp_size
from torch_conformance.oracles.core.expectation import Expectation, exact


def all_gather_outputs(x: torch.Tensor, dim: int) -> Expectation:
    return Expectation(outputs=(exact(torch.cat([x] * tp_size(), dim)),))
