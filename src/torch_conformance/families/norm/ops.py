"""The norm family: the C++ ops' fakes, and rms_norm's autograd formula,
which runs the C++ backward kernel as training libraries run theirs."""

from __future__ import annotations

import functools
from typing import Any

import torch

from torch_conformance.kernels.build import load_kernels


def rms_norm_fake(input: torch.Tensor, weight: torch.Tensor, epsilon: float) -> torch.Tensor:
    # The kernel allocates a contiguous output whatever the input's layout;
    # empty_like would keep a permuted input's strides.
    return input.new_empty(input.shape)


def rms_norm_backward_fake(
    grad: torch.Tensor, input: torch.Tensor, weight: torch.Tensor, epsilon: float
) -> tuple[torch.Tensor, torch.Tensor]:
    return input.new_empty(input.shape), weight.new_empty(weight.shape)


def save_inputs(ctx: Any, inputs: tuple, output: torch.Tensor) -> None:
    """rms_norm's formulas save its input and weight, and the epsilon."""
    input, weight, epsilon = inputs
    ctx.save_for_backward(input, weight)
    ctx.epsilon = epsilon


def _rms_norm_backward(ctx: Any, grad: torch.Tensor) -> tuple:
    input, weight = ctx.saved_tensors
    # The kernel reads rows whose last dimension is contiguous: a transposed
    # or expanded upstream gradient (as a model's backward passes) is copied first.
    grad_input, grad_weight = torch.ops.conformance.rms_norm_backward(
        grad.contiguous(), input, weight, ctx.epsilon
    )
    return grad_input, grad_weight, None


def fused_add_rms_norm_fake(
    input: torch.Tensor, residual: torch.Tensor, weight: torch.Tensor, epsilon: float
) -> None:
    # Writes input and residual in place and returns nothing, as its schema says.
    return None


@functools.cache
def register() -> None:
    """Build and load the C++ ops and register their fakes (once)."""
    load_kernels()
    torch.library.register_fake("conformance::rms_norm", rms_norm_fake)
    torch.library.register_fake("conformance::rms_norm_backward", rms_norm_backward_fake)
    torch.library.register_autograd(
        "conformance::rms_norm", _rms_norm_backward, setup_context=save_inputs
    )
    torch.library.register_fake("conformance::fused_add_rms_norm", fused_add_rms_norm_fake)
