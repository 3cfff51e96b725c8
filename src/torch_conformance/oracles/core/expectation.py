"""Float64 references and the ULP measure against them.

A reference gives, for every value an op produces (its outputs and the
arguments it writes), the exact float64 result of the same arithmetic on the
same inputs and a *scale*: the magnitude of the terms that produced it. Error
is counted in ULPs of the tested dtype at ``max(|value|, scale)``, so a
cancelling ``x*cos - y*sin`` is judged by the rounding its terms allow, not by
its tiny result.

References run on the CPU whatever device a Case lives on (``on_cpu``):
float64 is exact there, and a reference written for the CPU runs as written.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import TypeVar

import torch

Key = TypeVar("Key")


@dataclasses.dataclass(frozen=True)
class Expected:
    """A value and its scale; ``gradient``, where a reference gives one, is
    what gradients of the value are judged at instead of the scale's own
    gradient (see ``gradient_scale``)."""

    value: torch.Tensor  # float64
    scale: torch.Tensor  # float64, >= 0
    gradient: torch.Tensor | None = None  # float64, differentiable in the inputs

    @property
    def gradient_scale(self) -> torch.Tensor:
        """What the gradient of this value is judged at: the gradient of
        ``sum(gradient_scale * |upstream|)``, in magnitude. The scale serves
        where the value is linear in each input (its gradient is then the
        magnitude of the terms the gradient sums); a nonlinear value's
        gradient has terms of opposite sign that cancel, so its reference
        writes one. Its value is at least 0 and every term's gradient takes
        the sign of the input element it is taken in (``held_sign``), as the
        gradients of the inputs' own scales do: then where a program uses an
        input beside the op, the magnitudes of both add up instead of
        cancelling."""
        return self.scale if self.gradient is None else self.gradient


@dataclasses.dataclass(frozen=True)
class Expectation:
    """What a reference says an op call produces."""

    outputs: tuple[Expected, ...] = ()
    writes: Mapping[str, Expected] = dataclasses.field(default_factory=dict)


# The attribute of a float64 copy that says the dtype of the buffer it copies.
_JUDGED_DTYPE = "judged_dtype"


def judged_dtype(tensor: torch.Tensor) -> torch.dtype:
    """The dtype an argument has in the Case: its own, or, where the suite
    differentiates a float64 copy of the Case's buffer (the backward check's
    float64 gradients), that buffer's. A reference whose scale depends on
    the tested dtype reads it here."""
    base = tensor if tensor._base is None else tensor._base
    return getattr(base, _JUDGED_DTYPE, tensor.dtype)


def reference_gradients(
    forward: Expected, leaves: tuple[torch.Tensor, ...], grad: torch.Tensor
) -> tuple[Expected, ...]:
    """The float64 gradients of ``forward`` for ``leaves`` (``float64_leaf``
    copies) given the upstream ``grad``, each at the gradient of its
    gradient scale: a backward kernel's reference, judged as the backward
    checks judge the forward op's formula."""
    g = grad.to(torch.float64)
    values = torch.autograd.grad((forward.value * g).sum(), leaves, retain_graph=True)
    scales = torch.autograd.grad((forward.gradient_scale * g.abs()).sum(), leaves)
    return tuple(Expected(v, s.abs()) for v, s in zip(values, scales, strict=True))


def held_sign(t: torch.Tensor) -> torch.Tensor:
    """+1 or -1 (never 0) by the sign of ``t``, held constant: what a
    ``gradient`` multiplies a term by so that its gradient takes one sign."""
    return torch.where(t.detach() < 0, -1.0, 1.0).to(t.dtype)


def float32_excess(units: float, dtype: torch.dtype) -> float:
    """How far a kernel's float32 arithmetic, off by ``units`` float32 unit
    roundoffs of the magnitude of its terms, overruns the 1.5 ULP of
    ``dtype`` that a budget leaves past the final rounding: a term scaled by
    ``1 + float32_excess(...)`` holds it (next to nothing in a 16-bit dtype)."""
    return units * torch.finfo(torch.float32).eps / 2 / (1.5 * torch.finfo(dtype).eps)


def on_cpu(tensors: Mapping[Key, torch.Tensor]) -> dict[Key, torch.Tensor]:
    """``tensors`` on the CPU for a reference: copies of a device's tensors,
    the CPU's own tensors as they are."""
    return {name: tensor.cpu() for name, tensor in tensors.items()}


def float64_leaf(buffer: torch.Tensor) -> torch.Tensor:
    """A float64 copy of ``buffer`` that takes gradients and remembers its dtype."""
    leaf = buffer.detach().to(torch.float64).requires_grad_()
    setattr(leaf, _JUDGED_DTYPE, buffer.dtype)
    return leaf


def exact(tensor: torch.Tensor) -> Expected:
    """A value the op copies rather than computes."""
    value = tensor.to(torch.float64)
    return Expected(value, value.abs())


def ulp_error(got: torch.Tensor, expected: Expected) -> torch.Tensor:
    """Elementwise error of ``got`` in ULPs of its dtype; NaN matches NaN.
    Measured where the reference is (the CPU), whatever device ``got`` is on."""
    finfo = torch.finfo(got.dtype)
    got64 = got.to(expected.value.device, torch.float64)
    magnitude = torch.maximum(expected.value.abs(), expected.scale)
    magnitude = magnitude.nan_to_num(nan=finfo.tiny, posinf=finfo.max).clamp_min(finfo.tiny)
    ulp = finfo.eps * torch.exp2(torch.floor(torch.log2(magnitude)))
    error = (got64 - expected.value).abs() / ulp
    same_special = (got64.isnan() & expected.value.isnan()) | (
        got64.isinf() & (got64 == expected.value)
    )
    error = torch.where(same_special, torch.zeros_like(error), error)
    return error.nan_to_num(nan=float("inf"))
