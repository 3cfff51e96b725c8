"""The rope family's float64 reference: rotary embedding of query and key."""

from __future__ import annotations

import torch

from torch_conformance.oracles.core.expectation import Expectation, Expected


def rope(
    positions: torch.Tensor,
    query: torch.Tensor,
    key: torch.Tensor | None,
    head_size: int,
    cos_sin_cache: torch.Tensor,
    is_neox: bool,
) -> tuple[Expected, Expected | None]:
    """Rotary embedding of query and key (if any) in float64, in their own shapes."""
    cos, sin = cos_sin_cache.to(torch.float64)[positions].chunk(2, -1)
    return (
        rotate_heads(query, cos, sin, head_size, is_neox),
        None if key is None else rotate_heads(key, cos, sin, head_size, is_neox),
    )


def rotate_heads(
    x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor, head_size: int, is_neox: bool
) -> Expected:
    """``x``'s heads rotated in float64 by ``cos`` and ``sin`` (``[*tokens,
    rotary_dim // 2]``, one pair per token and channel), in ``x``'s shape."""
    half = cos.shape[-1]
    rotary_dim = 2 * half
    heads = x.to(torch.float64).reshape(*cos.shape[:-1], -1, head_size)
    cos, sin = cos.to(torch.float64).unsqueeze(-2), sin.to(torch.float64).unsqueeze(-2)
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
