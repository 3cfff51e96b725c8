"""The norm family's bug zoo: right kernels under the fakes a serving stack's
op registry shipped (seed 001). Their fakes are registered on the ops, as a
registry does, so the registry lint sees them as well as the checks.

- ``add_rms_norm_returns_none``: ``-> (Tensor, Tensor)``, a fake returning
  None (copied from the fakes of ops that return nothing);
- ``add_rms_norm_returns_one``: the same op, a fake returning one tensor;
- ``add_rms_norm_stats_returns_three``: ``-> (Tensor, Tensor, Tensor,
  Tensor)``, a fake returning three;
- ``fused_add_rms_norm_fresh_residual``: writes input and residual and
  returns them (``-> (Tensor(a!), Tensor(b!))``); its fake returns a fresh
  residual instead of the argument.
"""

from __future__ import annotations

import functools

import torch

from families import prepared
from families.norm import reference
from families.norm.cases import FUSED_ADD
from families.norm.specs import norm_spec
from kernels.build import load_kernels
from oracles.core.reference import Expectation
from oracles.core.spec import Spec


def none_fake(input, residual, weight, epsilon) -> None:
    return None


def one_fake(input, residual, weight, epsilon):
    return input.new_empty(input.shape)


def three_fake(input, residual, weight, epsilon):
    stats = input.new_empty((*input.shape[:-1], 1), dtype=torch.float32)
    return input.new_empty(input.shape), residual.new_empty(residual.shape), stats


def fresh_residual_fake(input, residual, weight, epsilon):
    return input, residual.new_empty(residual.shape)


FAKES = {
    "add_rms_norm_returns_none": none_fake,
    "add_rms_norm_returns_one": one_fake,
    "add_rms_norm_stats_returns_three": three_fake,
    "fused_add_rms_norm_fresh_residual": fresh_residual_fake,
}


@functools.cache
def register() -> None:
    """Build and load the zoo's ops and register their fakes (once)."""
    load_kernels()
    for name, fake in FAKES.items():
        torch.library.register_fake(f"conformance_zoo::{name}", fake)


def returned_writes(input, residual, weight, epsilon) -> Expectation:
    """Written in place and returned."""
    writes = reference.fused_add_rms_norm_writes(input, residual, weight, epsilon).writes
    return Expectation(outputs=(writes["input"], writes["residual"]), writes=writes)


def _zoo_spec(name: str, **fields) -> Spec:
    return norm_spec(
        name,
        f"conformance_zoo::{name}",
        FUSED_ADD,
        families=("norm", "zoo"),
        prepare=prepared(register),
        **fields,
    )


SPECS = [
    _zoo_spec("add_rms_norm_returns_none", reference=reference.add_rms_norm_outputs),
    _zoo_spec("add_rms_norm_returns_one", reference=reference.add_rms_norm_outputs),
    _zoo_spec("add_rms_norm_stats_returns_three", reference=None),
    _zoo_spec("fused_add_rms_norm_fresh_residual", reference=returned_writes),
]
