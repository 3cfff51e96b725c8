"""The collective family: the group size both the kernel and its fake read,
and the C++ op's fake.

A serving stack sets its tensor-parallel size once per process; the kernel
reads it as ``CONFORMANCE_TP_SIZE`` (default 1), and a fake that shapes the
gathered output must read the very same setting.
"""

from __future__ import annotations

import functools
import os

import torch

from torch_conformance.kernels.build import load_kernels

TP_SIZE = "CONFORMANCE_TP_SIZE"


def tp_size() -> int:
    """The tensor-parallel group size the all-gather gathers over."""
    return int(os.environ.get(TP_SIZE) or 1)


def set_tp_size(size: int) -> None:
    os.environ[TP_SIZE] = str(size)


def gathered_shape(x: torch.Tensor, dim: int, ranks: int) -> list[int]:
    shape = list(x.shape)
    shape[dim] *= ranks
    return shape


def all_gather_fake(x: torch.Tensor, dim: int) -> torch.Tensor:
    # A fresh contiguous tensor, gathered over the configured group.
    return x.new_empty(gathered_shape(x, dim, tp_size()))


@functools.cache
def register() -> None:
    """Build and load the C++ op and register its fake (once)."""
    load_kernels()
    torch.library.register_fake("conformance::all_gather", all_gather_fake)
