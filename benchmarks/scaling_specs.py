"""A generated namespace for the scaling benchmark: ``CONFORMANCE_SCALING_OPS``
ops (default 10) of the activation family's size, each its own custom op
with a Python kernel and a fake, checked as a user's spec file would be
(``pytest --specs=benchmarks/scaling_specs.py``).

Every op computes ``silu_and_mul`` into a caller-given result, so each costs
what one such op costs; they are distinct ops, so no compiled graph of one
serves another.
"""

from __future__ import annotations

import os

import torch

from torch_conformance.families.activation.specs import silu_spec
from torch_conformance.oracles.core.specification import Spec

NAMESPACE = "scaling"
OPS = int(os.environ.get("CONFORMANCE_SCALING_OPS", "10"))


def _kernel(result: torch.Tensor, input: torch.Tensor) -> None:
    half = result.shape[-1]
    result.copy_(torch.nn.functional.silu(input[..., :half]) * input[..., half:])


def _fake(result: torch.Tensor, input: torch.Tensor) -> None:
    return None


def _define(number: int) -> str:
    """Op ``number`` of the namespace, registered with its fake; its qualified name."""
    name = f"{NAMESPACE}::silu_and_mul_{number}"
    op = torch.library.custom_op(name, mutates_args=("result",))(_kernel)
    op.register_fake(_fake)
    return name


SPECS: list[Spec] = [
    silu_spec(f"scaling_silu_and_mul_{number}", _define(number), prepare=None)
    for number in range(OPS)
]
