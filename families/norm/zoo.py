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
  residual instead of the argument;
- ``rms_norm_no_mean_term``: rms_norm with an autograd formula that forgets
  the input gradient's second term, ``- x inv^2 mean(g w x)`` (the gradient
  through the mean of squares), as a hand-written backward can.
"""

from __future__ import annotations

import functools

import torch

from families import prepared
from families.norm import ops, reference
from families.norm.cases import FUSED_ADD, RMS_NORM
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


def _no_mean_term(ctx, grad):
    input, weight = ctx.saved_tensors
    x, g, w = input.float(), grad.float(), weight.float()
    inverse = torch.rsqrt(x.square().mean(-1, keepdim=True) + ctx.epsilon)
    grad_input = (g * w * inverse).to(input.dtype)
    grad_weight = (g * x * inverse).reshape(-1, x.shape[-1]).sum(0).to(weight.dtype)
    return grad_input, grad_weight, None


@functools.cache
def register() -> None:
    """Build and load the zoo's ops and register their fakes (once)."""
    load_kernels()
    for name, fake in FAKES.items():
        torch.library.register_fake(f"conformance_zoo::{name}", fake)
    library = torch.library.Library("conformance_zoo", "FRAGMENT")  # noqa: TOR901
    library.define("rms_norm_no_mean_term(Tensor input, Tensor weight, float epsilon) -> Tensor")
    library.impl("rms_norm_no_mean_term", torch.ops.conformance.rms_norm, "CPU")
    torch.library.register_fake(
        "conformance_zoo::rms_norm_no_mean_term", ops.rms_norm_fake, lib=library
    )
    torch.library.register_autograd(
        "conformance_zoo::rms_norm_no_mean_term",
        _no_mean_term,
        setup_context=ops.save_inputs,
        lib=library,
    )
    register.library = library  # type: ignore[attr-defined]  # kept alive


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
    norm_spec(
        "rms_norm_no_mean_term",
        "conformance_zoo::rms_norm_no_mean_term",
        RMS_NORM,
        reference=reference.rms_norm_outputs,
        grads=("input", "weight"),
        families=("norm", "zoo", "backward"),
        prepare=prepared(register),
    ),
]
