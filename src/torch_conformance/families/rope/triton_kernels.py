"""The rotary embedding in Triton: one kernel for rope and mrope.

Each program rotates every head of ``BLOCK_T`` tokens. Every channel ``j`` of
the rotary half takes its cos and sin from the cache row at the position in
row ``rows[j]`` of ``positions``: one row for rope, three (temporal, height,
width) for mrope, whose sections the launcher turns into ``rows``. Like the
C++ kernels it computes in float32 and rounds once per result, and takes any
token and head strides with a contiguous last dimension (a column slice of a
fused qkv buffer is a valid input).
"""

from __future__ import annotations

import torch
import triton
import triton.language as tl

from torch_conformance.kernels.triton import launcher

# Tokens per program: small, so that token counts that are not a multiple of
# it (the masked tail) are common among the Cases.
BLOCK_T = 8


@triton.jit
def _rotate_kernel(
    x_ptr,
    positions_ptr,
    rows_ptr,
    cache_ptr,
    num_tokens,
    inner,
    num_heads,
    x_outer_stride,
    x_inner_stride,
    head_stride,
    pos_row_stride,
    pos_outer_stride,
    pos_inner_stride,
    cache_row_stride,
    cache_col_stride,
    HALF: tl.constexpr,
    HALF_PAD: tl.constexpr,
    HEADS_PAD: tl.constexpr,
    BLOCK: tl.constexpr,
    IS_NEOX: tl.constexpr,
    WHOLE_BLOCKS_ONLY: tl.constexpr,
):
    # Axes: tokens [BLOCK], heads [HEADS_PAD], channels of the rotary half [HALF_PAD].
    tokens = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    heads = tl.arange(0, HEADS_PAD)
    channels = tl.arange(0, HALF_PAD)
    if WHOLE_BLOCKS_ONLY:
        # The zoo's mask: it counts whole blocks, so a tail of fewer than
        # BLOCK tokens is never rotated.
        limit = num_tokens - num_tokens % BLOCK
    else:
        limit = num_tokens
    pair_mask = (tokens < limit)[:, None] & (channels < HALF)[None, :]
    outer = tokens // inner
    within = tokens % inner
    rows = tl.load(rows_ptr + channels, mask=channels < HALF, other=0)
    position = tl.load(
        positions_ptr
        + rows[None, :] * pos_row_stride
        + (outer * pos_outer_stride + within * pos_inner_stride)[:, None],
        mask=pair_mask,
        other=0,
    )
    cos_ptr = cache_ptr + position * cache_row_stride + channels[None, :] * cache_col_stride
    cos = tl.load(cos_ptr, mask=pair_mask, other=0).to(tl.float32)[:, None, :]
    sin = tl.load(cos_ptr + HALF * cache_col_stride, mask=pair_mask, other=0)
    sin = sin.to(tl.float32)[:, None, :]
    if IS_NEOX:
        a_offset = channels
        b_offset = channels + HALF
    else:
        a_offset = 2 * channels
        b_offset = 2 * channels + 1
    mask = pair_mask[:, None, :] & (heads < num_heads)[None, :, None]
    base = (
        x_ptr
        + (outer * x_outer_stride + within * x_inner_stride)[:, None, None]
        + (heads * head_stride)[None, :, None]
    )
    a = tl.load(base + a_offset[None, None, :], mask=mask, other=0)
    b = tl.load(base + b_offset[None, None, :], mask=mask, other=0)
    af = a.to(tl.float32)
    bf = b.to(tl.float32)
    tl.store(base + a_offset[None, None, :], (af * cos - bf * sin).to(a.dtype), mask=mask)
    tl.store(base + b_offset[None, None, :], (bf * cos + af * sin).to(a.dtype), mask=mask)


def _heads(x: torch.Tensor, name: str, head_size: int) -> tuple[int, ...]:
    """(outer, inner, outer stride, inner stride, heads, head stride) of a
    2-D ``[T, H*D]``, 3-D ``[T, H, D]`` or 4-D ``[B, S, H, D]`` view."""
    if x.dim() not in (2, 3, 4):
        raise ValueError(f"rotary_embedding: {name} must be 2-, 3- or 4-D, got {list(x.shape)}")
    if x.stride(-1) != 1:
        raise ValueError(f"rotary_embedding: the last dimension of {name} must be contiguous")
    if x.dim() == 2:
        if x.shape[1] % head_size:
            raise ValueError(f"rotary_embedding: {name} width is not a multiple of {head_size}")
        return x.shape[0], 1, x.stride(0), 0, x.shape[1] // head_size, head_size
    if x.shape[-1] != head_size:
        raise ValueError(f"rotary_embedding: {name} head dimension != head_size {head_size}")
    if x.dim() == 3:
        return x.shape[0], 1, x.stride(0), 0, x.shape[1], x.stride(1)
    return x.shape[0], x.shape[1], x.stride(0), x.stride(1), x.shape[2], x.stride(2)


def rotate(
    x: torch.Tensor,
    name: str,
    positions: torch.Tensor,
    rows: torch.Tensor,
    head_size: int,
    cos_sin_cache: torch.Tensor,
    is_neox: bool,
    *,
    whole_blocks_only: bool = False,
) -> None:
    """Rotate ``x`` in place; ``positions`` is ``[R, *tokens]`` (R position
    rows) and ``rows[j]`` the row channel ``j`` reads its position from."""
    outer, inner, outer_stride, inner_stride, heads, head_stride = _heads(x, name, head_size)
    if x.dtype != cos_sin_cache.dtype:
        raise ValueError(
            f"rotary_embedding: {name} and cos_sin_cache must share a dtype, got "
            f"{x.dtype} and {cos_sin_cache.dtype}"
        )
    rotary_dim = cos_sin_cache.shape[-1]
    if rotary_dim % 2 or rotary_dim > head_size:
        raise ValueError(f"rotary_embedding: rotary_dim {rotary_dim} must be even, <= head_size")
    tokens = outer * inner
    if positions[0].numel() != tokens:
        raise ValueError(f"rotary_embedding: {positions[0].numel()} positions for {tokens} tokens")
    pos_outer = positions.stride(1)
    pos_inner = positions.stride(2) if positions.dim() == 3 else 0
    half = rotary_dim // 2
    if tokens == 0 or heads == 0:
        return
    grid = (triton.cdiv(tokens, BLOCK_T),)
    launcher(_rotate_kernel)[grid](
        x,
        positions,
        rows,
        cos_sin_cache,
        tokens,
        inner,
        heads,
        outer_stride,
        inner_stride,
        head_stride,
        positions.stride(0),
        pos_outer,
        pos_inner,
        cos_sin_cache.stride(0),
        cos_sin_cache.stride(1),
        HALF=half,
        HALF_PAD=triton.next_power_of_2(half),
        HEADS_PAD=triton.next_power_of_2(heads),
        BLOCK=BLOCK_T,
        IS_NEOX=is_neox,
        WHOLE_BLOCKS_ONLY=whole_blocks_only,
    )
