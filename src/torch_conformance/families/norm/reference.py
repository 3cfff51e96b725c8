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

from torch_conformance.oracles.core.expectation import (
    Expectation,
    Expected,
    float32_excess,
    float64_leaf,
    held_sign,
    judged_dtype,
    reference_gradients,
)

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
    weight = weight.to(torch.float64)
    inverse = torch.rsqrt(x.square().mean(-1, keepdim=True) + epsilon)
    value = x * inverse * weight
    bound = (hidden - 1) / 2 * torch.finfo(torch.float32).eps / 2
    drift = bound / (NORM_ULP_BUDGET * torch.finfo(dtype).eps)
    gradient = _gradient_scale(x, weight, inverse, dtype)
    return Expected(value, value.abs() * (1 + drift), gradient)


def _gradient_scale(
    x: torch.Tensor, weight: torch.Tensor, inverse: torch.Tensor, dtype: torch.dtype
) -> torch.Tensor:
    """What rms_norm's gradients are judged at (``Expected.gradient_scale``).

    With A = |g w| inv and B = inv^3 sum|g w x| / hidden, the input's
    gradient inv (g w - x inv^2 sum(g w x) / hidden) has terms of opposite
    sign; a backward in float32 (as the kernels') is off by at most
    A (3u + d) + |x| B ((hidden + 7) u + 3d), u float32's unit roundoff and
    d = (hidden + 6) u / 2 the inverse RMS's relative error; the weight's,
    a sum over rows of g x inv, by (rows + 1) u + d of the sum of its terms'
    magnitudes. The budget leaves 1.5 ULP of the dtype past the final
    rounding, so each term is scaled by 1 + (its bound / 1.5 ULP). Written
    so that every term's gradient takes the sign of x (signs and factors
    held constant): the gradient of sum(this * |g|) is A (1 + a) + |x| B (1 + b).
    """
    hidden, rows = x.shape[-1], max(1, x.numel() // max(1, x.shape[-1]))
    d = (hidden + 6) / 2  # in float32 unit roundoffs, as the bounds below
    a = float32_excess(max(3 + d, rows + 1 + d), dtype)
    b = float32_excess(hidden + 7 + 3 * d, dtype)
    held = inverse.detach()
    x_sign, w_sign = held_sign(x), held_sign(weight)
    first = (x * x_sign) * (weight * w_sign) * held * (1 + a)
    second = (x * x_sign).detach() * weight.detach().abs() * held**3
    return first + second * x.square().sum(-1, keepdim=True) / (2 * hidden) * (1 + b)


def added(input: torch.Tensor, residual: torch.Tensor) -> Expected:
    """``input + residual`` in float64, at the magnitude of its terms."""
    a, b = input.to(torch.float64), residual.to(torch.float64)
    return Expected(a + b, a.abs() + b.abs())


def rms_norm_outputs(input: torch.Tensor, weight: torch.Tensor, epsilon: float) -> Expectation:
    dtype = judged_dtype(input)
    return Expectation(outputs=(normalized(input.to(torch.float64), weight, epsilon, dtype),))


def rms_norm_backward_outputs(
    grad: torch.Tensor, input: torch.Tensor, weight: torch.Tensor, epsilon: float
) -> Expectation:
    """rms_norm's gradients for input and weight, given the upstream
    ``grad``: the float64 gradients of the reference, at its gradient scale
    (what the backward checks judge rms_norm's formula by)."""
    with torch.enable_grad():
        x, w = float64_leaf(input), float64_leaf(weight)
        forward = normalized(x, w, epsilon, judged_dtype(input))
        return Expectation(outputs=reference_gradients(forward, (x, w), grad))


def fused_add_rms_norm_writes(
    input: torch.Tensor, residual: torch.Tensor, weight: torch.Tensor, epsilon: float
) -> Expectation:
    """residual becomes input + residual; input, that sum normalized."""
    total = added(input, residual)
    normed = normalized(total.value, weight, epsilon, judged_dtype(input))
    return Expectation(writes={"input": normed, "residual": total})


def add_rms_norm_outputs(
    input: torch.Tensor, residual: torch.Tensor, weight: torch.Tensor, epsilon: float
) -> Expectation:
    """The functional form: (the sum normalized, the sum)."""
    writes = fused_add_rms_norm_writes(input, residual, weight, epsilon).writes
    return Expectation(outputs=(writes["input"], writes["residual"]))
