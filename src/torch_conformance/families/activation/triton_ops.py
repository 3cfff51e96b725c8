"""The activation family's Triton ops: ``conformance::silu_and_mul`` ported to
Triton, the same schema and semantics (``result`` written in place), and its
functional form with a backward kernel of its own, which the functional
form's autograd formula runs, as the C++ ops.

Imported only where Triton runs (see ``kernels/triton.py``).
"""

from __future__ import annotations

import functools
from typing import Any

import torch
import triton
import triton.language as tl

from torch_conformance.families.activation.ops import (
    save_input,
    silu_and_mul_backward_fake,
    silu_and_mul_functional_fake,
)
from torch_conformance.kernels import triton as triton_kernels
from torch_conformance.kernels.row_geometry import row_geometry
from torch_conformance.kernels.triton import launcher
from torch_conformance.kernels.triton_rows import row_start

BLOCK = 1024


@triton.jit
def _silu_and_mul_kernel(
    result_ptr,
    input_ptr,
    d,
    inner,
    result_outer,
    result_inner,
    input_outer,
    input_inner,
    BLOCK: tl.constexpr,
):
    row = tl.program_id(0)
    columns = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    mask = columns < d
    source = row_start(input_ptr, row, inner, input_outer, input_inner)
    gate = tl.load(source + columns, mask=mask, other=0)
    up = tl.load(source + d + columns, mask=mask, other=0)
    g = gate.to(tl.float32)
    # silu rounded to the dtype, then the product, as the C++ kernel.
    activated = (g / (1.0 + tl.exp(-g))).to(gate.dtype)
    out = (activated.to(tl.float32) * up.to(tl.float32)).to(gate.dtype)
    target = row_start(result_ptr, row, inner, result_outer, result_inner)
    tl.store(target + columns, out, mask=mask)


def silu_and_mul_triton(result: torch.Tensor, input: torch.Tensor) -> None:
    d = result.shape[-1]
    if input.shape[:-1] != result.shape[:-1] or input.shape[-1] != 2 * d:
        raise ValueError(
            f"silu_and_mul: input {list(input.shape)} must be result {list(result.shape)} "
            "with a last dimension twice as wide"
        )
    if input.dtype != result.dtype:
        raise ValueError("silu_and_mul: result and input must share a dtype")
    outer, inner, result_outer, result_inner = row_geometry(result, "result")
    _, _, input_outer, input_inner = row_geometry(input, "input")
    if outer * inner == 0 or d == 0:
        return
    grid = (outer * inner, triton.cdiv(d, BLOCK))
    launcher(_silu_and_mul_kernel)[grid](
        result, input, d, inner, result_outer, result_inner, input_outer, input_inner, BLOCK=BLOCK
    )


@triton.jit
def _silu_and_mul_backward_kernel(
    grad_input_ptr,
    grad_ptr,
    input_ptr,
    d,
    inner,
    grad_outer,
    grad_inner,
    input_outer,
    input_inner,
    BLOCK: tl.constexpr,
):
    row = tl.program_id(0)
    columns = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    mask = columns < d
    upstream = row_start(grad_ptr, row, inner, grad_outer, grad_inner)
    g = tl.load(upstream + columns, mask=mask, other=0).to(tl.float32)
    source = row_start(input_ptr, row, inner, input_outer, input_inner)
    gate = tl.load(source + columns, mask=mask, other=0).to(tl.float32)
    up = tl.load(source + d + columns, mask=mask, other=0).to(tl.float32)
    # sigmoid and its complement from exp(-|gate|), as the C++ kernel.
    e = tl.exp(-tl.abs(gate))
    s = tl.where(gate >= 0, 1.0 / (1.0 + e), e / (1.0 + e))
    c = tl.where(gate >= 0, e / (1.0 + e), 1.0 / (1.0 + e))
    dtype = grad_input_ptr.dtype.element_ty
    target = grad_input_ptr + row * 2 * d
    tl.store(target + columns, (g * up * s * (1.0 + gate * c)).to(dtype), mask=mask)
    tl.store(target + d + columns, (g * gate * s).to(dtype), mask=mask)


def silu_and_mul_functional_triton(input: torch.Tensor) -> torch.Tensor:
    result = input.new_empty(silu_and_mul_functional_fake(input).shape)
    silu_and_mul_triton(result, input)
    return result


def silu_and_mul_backward_triton(grad: torch.Tensor, input: torch.Tensor) -> torch.Tensor:
    d = grad.shape[-1]
    if input.shape[:-1] != grad.shape[:-1] or input.shape[-1] != 2 * d:
        raise ValueError(
            f"silu_and_mul_backward: input {list(input.shape)} must be grad "
            f"{list(grad.shape)} with a last dimension twice as wide"
        )
    if input.dtype != grad.dtype:
        raise ValueError("silu_and_mul_backward: grad and input must share a dtype")
    grad_input = input.new_empty(input.shape)
    outer, inner, grad_outer, grad_inner = row_geometry(grad, "grad")
    _, _, input_outer, input_inner = row_geometry(input, "input")
    if outer * inner == 0 or d == 0:
        return grad_input
    grid = (outer * inner, triton.cdiv(d, BLOCK))
    launcher(_silu_and_mul_backward_kernel)[grid](
        grad_input, grad, input, d, inner, grad_outer, grad_inner, input_outer, input_inner,
        BLOCK=BLOCK,
    )  # fmt: skip
    return grad_input


def _triton_formula(ctx: Any, grad: torch.Tensor) -> torch.Tensor:
    (input,) = ctx.saved_tensors
    # The kernel reads rows whose last dimension is contiguous, as the C++ one.
    return torch.ops.conformance.silu_and_mul_backward_triton(grad.contiguous(), input)


@functools.cache
def register_triton() -> None:
    """Register the Triton ops and the functional form's formula (once)."""
    triton_kernels.register(
        "conformance::silu_and_mul_triton", silu_and_mul_triton, mutates_args=("result",)
    )
    triton_kernels.register(
        "conformance::silu_and_mul_functional_triton",
        silu_and_mul_functional_triton,
        mutates_args=(),
        fake=silu_and_mul_functional_fake,
    )
    triton_kernels.register(
        "conformance::silu_and_mul_backward_triton",
        silu_and_mul_backward_triton,
        mutates_args=(),
        fake=silu_and_mul_backward_fake,
    )
    torch.library.register_autograd(
        "conformance::silu_and_mul_functional_triton", _triton_formula, setup_context=save_input
    )
