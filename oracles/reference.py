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


def rope(
    positions: torch.Tensor,
    query: torch.Tensor,
    key: torch.Tensor | None,
    head_size: int,
    cos_sin_cache: torch.Tensor,
    is_neox: bool,
) -> tuple[Expected, Expected | None]:
    """Rotary embedding of query and key (if any) in float64, in their own shapes."""
    return (
        _rotate(positions, query, head_size, cos_sin_cache, is_neox),
        None if key is None else _rotate(positions, key, head_size, cos_sin_cache, is_neox),
    )


def _rotate(positions, x, head_size, cache, is_neox) -> Expected:
    rotary_dim = cache.shape[-1]
    half = rotary_dim // 2
    heads = x.to(torch.float64).reshape(*positions.shape, -1, head_size)
    cos, sin = cache.to(torch.float64)[positions].unsqueeze(-2).split(half, -1)
    if is_neox:
        a, b = heads[..., :half], heads[..., half:rotary_dim]
    else:
        a, b = heads[..., 0:rotary_dim:2], heads[..., 1:rotary_dim:2]
    value = heads.clone()
    scale = heads.abs()
    rotated = (a * cos - b * sin, b * cos + a * sin)
    magnitude = (
        (a * cos).abs() + (b * sin).abs(),
        (b * cos).abs() + (a * sin).abs(),
    )
    if is_neox:
        value[..., :rotary_dim] = torch.cat(rotated, -1)
        scale[..., :rotary_dim] = torch.cat(magnitude, -1)
    else:
        value[..., :rotary_dim] = torch.stack(rotated, -1).flatten(-2)
        scale[..., :rotary_dim] = torch.stack(magnitude, -1).flatten(-2)
    return Expected(value.reshape(x.shape), scale.reshape(x.shape))


def rope_writes(**args) -> Expectation:
    """For an op that rotates query and key (if any) in place."""
    query, key = rope(**args)
    writes = {"query": query} if key is None else {"query": query, "key": key}
    return Expectation(writes=writes)


def rope_outputs(**args) -> Expectation:
    """For an op that returns the rotated query and key."""
    return Expectation(outputs=rope(**args))
