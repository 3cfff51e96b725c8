"""How a Triton kernel walks the rows of a ``[T, hidden]`` or ``[B, S,
hidden]`` view: a row index splits into (outer, inner), each with a stride,
so padded and permuted leading dimensions need no copy."""

from __future__ import annotations

import torch


def row_geometry(x: torch.Tensor, name: str) -> tuple[int, int, int, int]:
    """(outer, inner, outer stride, inner stride) of a 2-D or 3-D view whose
    last dimension is contiguous."""
    if x.dim() not in (2, 3):
        raise ValueError(
            f"{name} must be 2-D [T, hidden] or 3-D [B, S, hidden], got {list(x.shape)}"
        )
    if x.shape[-1] > 1 and x.stride(-1) != 1:
        raise ValueError(f"the last dimension of {name} must be contiguous, got {x.stride()}")
    if x.dim() == 2:
        return x.shape[0], 1, x.stride(0), 0
    return x.shape[0], x.shape[1], x.stride(0), x.stride(1)
