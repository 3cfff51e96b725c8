"""The rope family's Triton ops: ``conformance::rotary_embedding`` ported to
Triton, the same schema and semantics (query and key rotated in place, key
optional), and ``conformance::rotary_embedding_functional`` (fresh rotated
tensors) with the same backward: the inverse rotation, by the op itself.

Imported only where Triton runs (see ``kernels/triton.py``).
"""

from __future__ import annotations

import functools

import torch

from torch_conformance.families.rope.ops import (
    register_rotated_back,
    rotary_embedding_functional_fake,
)
from torch_conformance.families.rope.triton_kernels import rotate
from torch_conformance.kernels import triton as triton_kernels


def rotary_embedding_triton(
    positions: torch.Tensor,
    query: torch.Tensor,
    key: torch.Tensor | None,
    head_size: int,
    cos_sin_cache: torch.Tensor,
    is_neox: bool,
) -> None:
    # One position row, which every channel reads.
    rows = torch.zeros(cos_sin_cache.shape[-1] // 2, dtype=torch.int64, device=query.device)
    for name, x in (("query", query), ("key", key)):
        if x is not None:
            rotate(x, name, positions.unsqueeze(0), rows, head_size, cos_sin_cache, is_neox)


def rotary_embedding_functional_triton(
    positions: torch.Tensor,
    query: torch.Tensor,
    key: torch.Tensor,
    head_size: int,
    cos_sin_cache: torch.Tensor,
    is_neox: bool,
) -> tuple[torch.Tensor, torch.Tensor]:
    # Fresh contiguous copies rotated in place, as the C++ functional kernel
    # returns whatever the layout it is given (a gradient's, in its backward).
    rotated = query.new_empty(query.shape).copy_(query), key.new_empty(key.shape).copy_(key)
    rotary_embedding_triton(positions, *rotated, head_size, cos_sin_cache, is_neox)
    return rotated


@functools.cache
def register_triton() -> None:
    """Register the Triton ops and the functional op's backward (once)."""
    triton_kernels.register(
        "conformance::rotary_embedding_triton",
        rotary_embedding_triton,
        mutates_args=("query", "key"),
    )
    triton_kernels.register(
        "conformance::rotary_embedding_functional_triton",
        rotary_embedding_functional_triton,
        mutates_args=(),
        fake=rotary_embedding_functional_fake,
    )
    register_rotated_back("rotary_embedding_functional_triton")
