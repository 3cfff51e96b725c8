"""The rope family's float64 reference: rotary embedding of query and key."""

from __future__ import annotations

import torch

from oracles.reference import Expectation, Expected


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
