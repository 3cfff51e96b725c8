"""Fakes of the bug zoo: each is what some real codebase shipped.

``conformance_zoo::rotary_embedding_cpu`` rotates 2-D and 4-D inputs in
place and returns them, and allocates for 3-D inputs, under a schema that
declares neither (see ``csrc/zoo.cpp``). Its three fakes are the three a
serving framework went through.
"""

from __future__ import annotations

import functools

import torch

from kernels.build import load_kernels


def gemma4_fake(positions, query, key, head_size, cos_sin_cache, is_neox):
    """Unconditional ``empty_like``: contiguous where the kernel returns a slice."""
    return torch.empty_like(query), torch.empty_like(key)


def two_dim_fake(positions, query, key, head_size, cos_sin_cache, is_neox):
    """The older fake: returns the inputs for 2-D only, so 4-D is wrong."""
    if query.ndim == 2:
        return query, key
    return torch.empty_like(query), torch.empty_like(key)


def mirrored_fake(positions, query, key, head_size, cos_sin_cache, is_neox):
    """Mirrors the kernel: allocate for 3-D, return the inputs otherwise."""
    if query.ndim == 3:
        return query.new_empty(query.shape), key.new_empty(key.shape)
    return query, key


def no_output_fake(positions, query, key, head_size, cos_sin_cache, is_neox) -> None:
    return None


@functools.cache
def register() -> None:
    """Build and load the zoo's ops and the fakes that never change.

    ``rotary_embedding_cpu`` gets its fake from each zoo Spec in turn;
    ``rotary_embedding_no_fake`` never gets one.
    """
    load_kernels()
    for name in (
        "rotary_embedding_undeclared_write",
        "rotary_embedding_overrun",
        "rotary_embedding_aborts",
        "rotary_embedding_contiguous_positions",
    ):
        torch.library.register_fake(f"conformance_zoo::{name}", no_output_fake)
