"""The MRoPE family's Triton op: the rope family's rotation kernel, each
channel reading the position of its mrope section's row.

Imported only where Triton runs (see ``kernels/triton.py``).
"""

from __future__ import annotations

import functools
from collections.abc import Callable

import torch

from torch_conformance.families.mrope.ops import section_rows
from torch_conformance.families.rope.triton_kernels import rotate
from torch_conformance.kernels import triton as triton_kernels


def rotate_mrope(
    positions: torch.Tensor,
    query: torch.Tensor,
    key: torch.Tensor,
    head_size: int,
    cos_sin_cache: torch.Tensor,
    mrope_section: list[int],
    interleaved: bool,
    is_neox: bool,
    *,
    whole_blocks_only: bool = False,
) -> None:
    """The Triton launch: query and key rotated in place, each channel's cos
    and sin at the position of its section's row."""
    if positions.dim() != 2 or positions.shape[0] != 3:
        raise ValueError(f"mrope: positions must be [3, T], got {list(positions.shape)}")
    rows = section_rows(mrope_section, cos_sin_cache.shape[-1] // 2, interleaved, query.device)
    for name, x in (("query", query), ("key", key)):
        if x.dim() != 2:
            raise ValueError(f"mrope: {name} must be 2-D [T, H*D], got {list(x.shape)}")
        rotate(
            x,
            name,
            positions,
            rows,
            head_size,
            cos_sin_cache,
            is_neox,
            whole_blocks_only=whole_blocks_only,
        )


def _launch(whole_blocks_only: bool) -> Callable[..., None]:
    """The op's launch, annotated for ``torch.library`` (which reads the
    annotations, so a ``functools.partial`` would not do)."""

    def launch(
        positions: torch.Tensor,
        query: torch.Tensor,
        key: torch.Tensor,
        head_size: int,
        cos_sin_cache: torch.Tensor,
        mrope_section: list[int],
        interleaved: bool,
        is_neox: bool,
    ) -> None:
        rotate_mrope(
            positions,
            query,
            key,
            head_size,
            cos_sin_cache,
            mrope_section,
            interleaved,
            is_neox,
            whole_blocks_only=whole_blocks_only,
        )

    return launch


@functools.cache
def register_triton() -> None:
    """Register the Triton op (once)."""
    triton_kernels.register(
        "conformance::mrope_rotary_embedding_triton",
        _launch(whole_blocks_only=False),
        mutates_args=("query", "key"),
    )


@functools.cache
def register_zoo() -> None:
    """The zoo's Triton op: its token mask counts whole blocks only (once)."""
    triton_kernels.register(
        "conformance_zoo::mrope_rotary_embedding_triton_whole_blocks",
        _launch(whole_blocks_only=True),
        mutates_args=("query", "key"),
    )
