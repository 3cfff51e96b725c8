"""The norm family's float64 reference.

The kernels sum the squares of a row in float32, in order: that sum may be
off by up to ``hidden - 1`` float32 roundings, so the inverse RMS by half as
many, relative. Each output's scale carries that drift in the tested
dtype's ULPs (next to nothing for 16-bit dtypes, a few ULP for float32 at
large hidden sizes), so the ULP budget covers only the roundings to the
dtype.
"""

from __future__ import annotations

import torch

from oracles.reference import Expectation, Expected


def normalized(
    x: torch.Tensor, weight: torch.Tensor, epsilon: float, dtype: torch.dtype
) -> Expected:
    """RMS normalization of float64 rows ``x``, judged in ``dtype``."""
    hidden = x.shape[-1]
    inverse = torch.rsqrt(x.square().mean(-1, keepdim=True) + epsilon)
    value = x * inverse * weight.to(torch.float64)
    drift = (hidden - 1) / 2 * torch.finfo(torch.float32).eps / 2 / torch.finfo(dtype).eps
    return Expected(value, value.abs() * (1 + drift))


def added(input: torch.Tensor, residual: torch.Tensor) -> Expected:
    """``input + residual`` in float64, at the magnitude of its terms."""
    a, b = input.to(torch.float64), residual.to(torch.float64)
    return Expected(a + b, a.abs() + b.abs())


def rms_norm_outputs(input: torch.Tensor, weight: torch.Tensor, epsilon: float) -> Expectation:
    return Expectation(outputs=(normalized(input.to(torch.float64), weight, epsilon, input.dtype),))


def fused_add_rms_norm_writes(
    input: torch.Tensor, residual: torch.Tensor, weight: torch.Tensor, epsilon: float
) -> Expectation:
    """residual becomes input + residual; input, that sum normalized."""
    total = added(input, residual)
    normed = normalized(total.value, weight, epsilon, input.dtype)
    return Expectation(writes={"input": normed, "residual": total})


def add_rms_norm_outputs(
    input: torch.Tensor, residual: torch.Tensor, weight: torch.Tensor, epsilon: float
) -> Expectation:
    """The functional form: (the sum normalized, the sum)."""
    writes = fused_add_rms_norm_writes(input, residual, weight, epsilon).writes
    return Expectation(outputs=(writes["input"], writes["residual"]))
