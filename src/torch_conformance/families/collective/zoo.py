"""The collective family's bug zoo (seed 001): the catalog's all-gather
kernel under a fake that reads the wrong configuration, torchrun's
``WORLD_SIZE`` (every rank of every group), where the kernel gathers over
the tensor-parallel group. Registered on the op, as a registry does.
"""

from __future__ import annotations

import functools
import os

import torch

from torch_conformance.families.collective import ops
from torch_conformance.families.collective.specs import GROUP, configured, gather_spec
from torch_conformance.kernels.build import load_kernels


def world_size_fake(x: torch.Tensor, dim: int) -> torch.Tensor:
    world = int(os.environ.get("WORLD_SIZE") or 1)
    return x.new_empty(ops.gathered_shape(x, dim, world))


@functools.cache
def register() -> None:
    load_kernels()
    torch.library.register_fake("conformance_zoo::all_gather_world_size", world_size_fake)


SPECS = [
    gather_spec(
        "all_gather_world_size",
        "conformance_zoo::all_gather_world_size",
        families=("collective", "zoo"),
        prepare=configured(register, GROUP),
    )
]
