"""Float64 references and the ULP measure against them.

A reference gives, for every value an op produces (its outputs and the
arguments it writes), the exact float64 result of the same arithmetic on the
same inputs and a *scale*: the magnitude of the terms that produced it. Error
is counted in ULPs of the tested dtype at ``max(|value|, scale)``, so a
cancelling ``x*cos - y*sin`` is judged by the rounding its terms allow, not by
its tiny result.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

import torch


@dataclasses.dataclass(frozen=True)
class Expected:
    value: torch.Tensor  # float64
    scale: torch.Tensor  # float64, >= 0


@dataclasses.dataclass(frozen=True)
class Expectation:
    """What a reference says an op call produces."""

    outputs: tuple[Expected, ...] = ()
    writes: Mapping[str, Expected] = dataclasses.field(default_factory=dict)


def exact(tensor: torch.Tensor) -> Expected:
    """A value the op copies rather than computes."""
    value = tensor.to(torch.float64)
    return Expected(value, value.abs())


def ulp_error(got: torch.Tensor, expected: Expected) -> torch.Tensor:
    """Elementwise error of ``got`` in ULPs of its dtype; NaN matches NaN."""
    finfo = torch.finfo(got.dtype)
    got64 = got.to(torch.float64)
    magnitude = torch.maximum(expected.value.abs(), expected.scale)
    magnitude = magnitude.nan_to_num(nan=finfo.tiny, posinf=finfo.max).clamp_min(finfo.tiny)
    ulp = finfo.eps * torch.exp2(torch.floor(torch.log2(magnitude)))
    error = (got64 - expected.value).abs() / ulp
    same_special = (got64.isnan() & expected.value.isnan()) | (
        got64.isinf() & (got64 == expected.value)
    )
    error = torch.where(same_special, torch.zeros_like(error), error)
    return error.nan_to_num(nan=float("inf"))
