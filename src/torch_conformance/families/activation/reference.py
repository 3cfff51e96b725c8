"""The activation family's float64 reference: silu(gate) * up, and the
gradients of the functional form, which the backward checks judge at the
scale ``_gradient_scale`` writes."""

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

# Float32 unit roundoffs the backward kernel may be off by, relative to the
# magnitude of its terms: the gate's gradient g up s (1 + gate c) rounds in
# exp, the sigmoid and its complement (4 each), gate c, 1 + gate c and three
# products; the up's, g gate s, in the sigmoid and two products.
_GATE_UNITS, _UP_UNITS = 13, 6


def silu_and_mul(input: torch.Tensor, dtype: torch.dtype) -> Expected:
    """silu(gate) * up of float64 ``input`` ([..., 2 * d]), judged in ``dtype``."""
    gate, up = input.chunk(2, dim=-1)
    value = torch.nn.functional.silu(gate) * up
    return Expected(value, value.abs(), _gradient_scale(gate, up, dtype))


def _gradient_scale(gate: torch.Tensor, up: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    """What the gradients are judged at (``Expected.gradient_scale``). The
    gate's gradient g up s (1 + gate (1 - s)), s = sigmoid(gate), has terms
    of opposite sign where the gate is negative (it is 0 near -1.28); the
    up's, g silu(gate), has one. Written, at a value of at least 0, so that
    each term's gradient takes the sign of its input element, scaled by what
    the float32 kernel may add: |up| (s + |gate| s (1 - s)) (1 + a) and
    |silu(gate)| (1 + b)."""
    s = torch.sigmoid(gate).detach()
    a, b = float32_excess(_GATE_UNITS, dtype), float32_excess(_UP_UNITS, dtype)
    magnitude = s + gate.detach().abs() * s * (1 - s)
    gate_terms = up.detach().abs() * (gate * held_sign(gate)) * magnitude * (1 + a)
    up_terms = up * held_sign(up) * torch.nn.functional.silu(gate).detach().abs() * (1 + b)
    return gate_terms + up_terms


def silu_and_mul_writes(result: torch.Tensor, input: torch.Tensor) -> Expectation:
    """result becomes silu(gate) * up, gate and up the two halves of input."""
    return Expectation(
        writes={"result": silu_and_mul(input.to(torch.float64), judged_dtype(input))}
    )


def silu_and_mul_outputs(input: torch.Tensor) -> Expectation:
    """The functional form: silu(gate) * up, a fresh tensor."""
    return Expectation(outputs=(silu_and_mul(input.to(torch.float64), judged_dtype(input)),))


def silu_and_mul_backward_outputs(grad: torch.Tensor, input: torch.Tensor) -> Expectation:
    """The functional form's gradient for input given the upstream ``grad``:
    the float64 gradient of the reference, at its gradient scale (what the
    backward checks judge the formula by)."""
    with torch.enable_grad():
        x = float64_leaf(input)
        forward = silu_and_mul(x, judged_dtype(input))
        return Expectation(outputs=reference_gradients(forward, (x,), grad))
