"""The norm family's float64 reference.

The kernels sum the squares of a row in float32, in order: that sum may be
off by up to ``hidden - 1`` float32 roundings, so the inverse RMS by half as
many, relative. Each output's scale carries that bound (next to nothing for
16-bit dtypes, up to a few hundred float32 ULPs at hidden 4096), divided by
the budget, which scales it again; the budget itself covers the roundings
to the dtype.
"""

from __future__ import annotations

import torch

from oracles.core.reference import Expectation, Expected

# Two roundings to the dtype, x * inverse and then * weight: the first one's
# error doubles in the result's ULPs where the weight moves the product down
# a binade, so 1.5 ULP rounding to nearest and under 3 where Triton's
# interpreter truncates to bfloat16; in float32 the inverse square root and
# mean add under 1 ULP. The float32 accumulation of the squares is in each
# output's scale.
NORM_ULP_BUDGET = 4


def normalized(
    x: torch.Tensor, weight: torch.Tensor, epsilon: float, dtype: torch.dtype
) -> Expected:
    """RMS normalization of float64 rows ``x``, judged in ``dtype``."""
    hidden = x.shape[-1]
    inverse = torch.rsqrt(x.square().mean(-1, keepdim=True) + epsilon)
    value = x * inverse * weight.to(torch.float64)
    bound = (hidden - 1) / 2 * torch.finfo(torch.float32).eps / 2
    drift = bound / (NORM_ULP_BUDGET * torch.finfo(dtype).eps)
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
