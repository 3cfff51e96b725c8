"""The activation family's float64 reference: silu(gate) * up."""

from __future__ import annotations

import torch

from oracles.core.reference import Expectation, Expected


def silu_and_mul_writes(result: torch.Tensor, input: torch.Tensor) -> Expectation:
    """result becomes silu(gate) * up, gate and up the two halves of input."""
    gate, up = input.to(torch.float64).chunk(2, dim=-1)
    value = torch.nn.functional.silu(gate) * up
    return Expectation(writes={"result": Expected(value, value.abs())})
