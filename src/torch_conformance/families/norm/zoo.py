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
  through the mean of squares), as a hand-written backward can;
- ``rms_norm_saves_output``: rms_norm whose kernel returns its output in its
  input's layout (``empty_like`` keeps a permuted input's strides) under the
  family's fake, which says contiguous; its formula saves that output and
  takes the weight's gradient from it (the normalized input is output over
  weight, as memory-efficient norms recover it), so a compiled backward
  indexes the saved output by the fake's strides.
"""

from __future__ import annotations

import functools

import torch

from torch_conformance.families import prepared
from torch_conformance.families.norm import ops, reference
from torch_conformance.families.norm.cases import FUSED_ADD, RMS_NORM, model_example
from torch_conformance.families.norm.specs import norm_spec
from torch_conformance.oracles.core.buffers import Buffer, Case, View
from torch_conformance.oracles.core.expectation import Expectation
from torch_conformance.oracles.core.specification import Spec


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


def _in_input_layout(input, weight, epsilon):
    result = torch.empty_like(input)
    return result.copy_(torch.ops.conformance.rms_norm(input, weight, epsilon))


def _save_output(ctx, inputs, output):
    input, weight, epsilon = inputs
    ctx.save_for_backward(input, weight, output)
    ctx.epsilon = epsilon


def _weight_from_output(ctx, grad):
    input, weight, output = ctx.saved_tensors
    grad_input, _ = torch.ops.conformance.rms_norm_backward(
        grad.contiguous(), input, weight, ctx.epsilon
    )
    normalized = output.float() / weight.float()
    grad_weight = (grad.float() * normalized).reshape(-1, weight.shape[-1]).sum(0)
    return grad_input, grad_weight.to(weight.dtype), None


@functools.cache
def register() -> None:
    """Build and load the zoo's ops and register their fakes (once), and the
    family's, whose backward kernel a formula here runs."""
    ops.register()
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
    library.define("rms_norm_saves_output(Tensor input, Tensor weight, float epsilon) -> Tensor")
    library.impl("rms_norm_saves_output", _in_input_layout, "CPU")
    torch.library.register_fake(
        "conformance_zoo::rms_norm_saves_output", ops.rms_norm_fake, lib=library
    )
    torch.library.register_autograd(
        "conformance_zoo::rms_norm_saves_output",
        _weight_from_output,
        setup_context=_save_output,
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


# Rows of a [2, 3] batch read as [3, 2]: a permuted input, whose layout
# empty_like keeps.
PERMUTED_ROWS = Case(
    {"input": Buffer((2, 3, 8), torch.float32), "weight": Buffer((8,), torch.float32)},
    {"input": View("input", (("permute", (1, 0, 2)),)), "weight": View("weight"), "epsilon": 1e-6},
    seed=3,
    label="rows of a [2, 3] batch read as [3, 2]",
)


def _backward_spec(name: str, **fields) -> Spec:
    return norm_spec(
        name,
        f"conformance_zoo::{name}",
        RMS_NORM,
        reference=reference.rms_norm_outputs,
        grads=("input", "weight"),
        families=("norm", "zoo", "backward"),
        prepare=prepared(register),
        **fields,
    )


SPECS = [
    _zoo_spec("add_rms_norm_returns_none", reference=reference.add_rms_norm_outputs),
    _zoo_spec("add_rms_norm_returns_one", reference=reference.add_rms_norm_outputs),
    _zoo_spec("add_rms_norm_stats_returns_three", reference=None),
    _zoo_spec("fused_add_rms_norm_fresh_residual", reference=returned_writes),
    _backward_spec("rms_norm_no_mean_term"),
    # Its formula's arithmetic is Inductor's to order (a division and a sum
    # over rows), so its compiled gradients are judged against the float64
    # ones; every check runs the permuted rows the bug needs.
    _backward_spec(
        "rms_norm_saves_output",
        bit_exact=False,
        examples=(model_example(RMS_NORM), PERMUTED_ROWS),
    ),
]
