"""The rope family's Triton op: ``conformance::rotary_embedding`` ported to
Triton, the same schema and semantics (query and key rotated in place, key
optional).

Imported only where Triton runs (see ``kernels/triton.py``).
"""

from __future__ import annotations

import functools

import torch

from families.rope.triton_kernels import rotate
from kernels import triton as triton_kernels


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


@functools.cache
def register_triton() -> None:
    """Register the Triton op (once)."""
    triton_kernels.register(
        "conformance::rotary_embedding_triton",
        rotary_embedding_triton,
        mutates_args=("query", "key"),
    )
