"""The activation family: the C++ ops' fakes, and the functional
silu_and_mul's autograd formula, which runs the C++ backward kernel as
training libraries run theirs."""

from __future__ import annotations

import functools
from typing import Any

import torch

from torch_conformance.kernels.build import load_kernels


def silu_and_mul_fake(result: torch.Tensor, input: torch.Tensor) -> None:
    # Writes result in place and returns nothing, as its schema says.
    return None


def _halved(input: torch.Tensor) -> list[int]:
    return [*input.shape[:-1], input.shape[-1] // 2]


def silu_and_mul_functional_fake(input: torch.Tensor) -> torch.Tensor:
    # The kernel allocates a contiguous result whatever the input's layout.
    return input.new_empty(_halved(input))


def silu_and_mul_backward_fake(grad: torch.Tensor, input: torch.Tensor) -> torch.Tensor:
    return input.new_empty(input.shape)


def save_input(ctx: Any, inputs: tuple, output: torch.Tensor) -> None:
    """The formula recomputes silu from the input rather than keep it."""
    ctx.save_for_backward(inputs[0])


def silu_and_mul_formula(ctx: Any, grad: torch.Tensor) -> torch.Tensor:
    """The functional form's autograd formula: the C++ backward kernel."""
    (input,) = ctx.saved_tensors
    # The kernel reads rows whose last dimension is contiguous: a transposed
    # or expanded upstream gradient (as a model's backward passes) is copied first.
    return torch.ops.conformance.silu_and_mul_backward(grad.contiguous(), input)


@functools.cache
def register() -> None:
    """Build and load the C++ ops and register their fakes and formula (once)."""
    load_kernels()
    torch.library.register_fake("conformance::silu_and_mul", silu_and_mul_fake)
    torch.library.register_fake(
        "conformance::silu_and_mul_functional", silu_and_mul_functional_fake
    )
    torch.library.register_fake("conformance::silu_and_mul_backward", silu_and_mul_backward_fake)
    torch.library.register_autograd(
        "conformance::silu_and_mul_functional",
        silu_and_mul_formula,
        setup_context=save_input,
    )
