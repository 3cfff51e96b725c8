"""The norm family's Triton ops: ``conformance::rms_norm`` ported to Triton,
the same schema and semantics (a fresh contiguous output), and its backward
kernel, which the Triton rms_norm's autograd formula runs. Each program
normalizes (or differentiates) one row, its sums float32 tree reductions;
the weight's gradient adds up every row's share, written in float32, as
training kernels do.

Imported only where Triton runs (see ``kernels/triton.py``).
"""

from __future__ import annotations

import functools
from typing import Any

import torch
import triton
import triton.language as tl

from torch_conformance.families.norm.ops import rms_norm_backward_fake, rms_norm_fake, save_inputs
from torch_conformance.kernels import triton as triton_kernels
from torch_conformance.kernels.row_geometry import row_geometry
from torch_conformance.kernels.triton import launcher
from torch_conformance.kernels.triton_rows import row_start


@triton.jit
def _rms_norm_kernel(
    out_ptr,
    input_ptr,
    weight_ptr,
    hidden,
    inner,
    input_outer,
    input_inner,
    weight_stride,
    epsilon,
    BLOCK: tl.constexpr,
):
    row = tl.program_id(0)
    columns = tl.arange(0, BLOCK)
    mask = columns < hidden
    source = row_start(input_ptr, row, inner, input_outer, input_inner)
    x = tl.load(source + columns, mask=mask, other=0)
    xf = x.to(tl.float32)
    inverse = 1.0 / tl.sqrt(tl.sum(xf * xf, axis=0) / hidden + epsilon)
    weight = tl.load(weight_ptr + columns * weight_stride, mask=mask, other=0)
    # x * inverse rounded to the dtype, then times the weight, as the C++ kernel.
    scaled = (xf * inverse).to(x.dtype).to(tl.float32)
    tl.store(
        out_ptr + row * hidden + columns, (scaled * weight.to(tl.float32)).to(x.dtype), mask=mask
    )


def rms_norm_triton(input: torch.Tensor, weight: torch.Tensor, epsilon: float) -> torch.Tensor:
    hidden = input.shape[-1]
    if weight.shape != (hidden,) or weight.dtype != input.dtype:
        got = f"{weight.dtype}{list(weight.shape)}"
        raise ValueError(f"rms_norm: weight must be {input.dtype}[{hidden}], got {got}")
    outer, inner, input_outer, input_inner = row_geometry(input, "input")
    out = torch.empty(input.shape, dtype=input.dtype, device=input.device)
    if outer * inner == 0 or hidden == 0:
        return out
    launcher(_rms_norm_kernel)[(outer * inner,)](
        out,
        input,
        weight,
        hidden,
        inner,
        input_outer,
        input_inner,
        weight.stride(0),
        epsilon,
        BLOCK=triton.next_power_of_2(hidden),
    )
    return out


@triton.jit
def _rms_norm_backward_kernel(
    grad_input_ptr,
    shares_ptr,
    grad_ptr,
    input_ptr,
    weight_ptr,
    hidden,
    inner,
    grad_outer,
    grad_inner,
    input_outer,
    input_inner,
    weight_stride,
    epsilon,
    BLOCK: tl.constexpr,
):
    row = tl.program_id(0)
    columns = tl.arange(0, BLOCK)
    mask = columns < hidden
    source = row_start(input_ptr, row, inner, input_outer, input_inner)
    x = tl.load(source + columns, mask=mask, other=0)
    xf = x.to(tl.float32)
    upstream = row_start(grad_ptr, row, inner, grad_outer, grad_inner)
    g = tl.load(upstream + columns, mask=mask, other=0).to(tl.float32)
    w = tl.load(weight_ptr + columns * weight_stride, mask=mask, other=0).to(tl.float32)
    inverse = 1.0 / tl.sqrt(tl.sum(xf * xf, axis=0) / hidden + epsilon)
    gw = g * w
    coefficient = tl.sum(gw * xf, axis=0) * inverse * inverse / hidden
    grad_input = ((gw - xf * coefficient) * inverse).to(x.dtype)
    tl.store(grad_input_ptr + row * hidden + columns, grad_input, mask=mask)
    tl.store(shares_ptr + row * hidden + columns, g * xf * inverse, mask=mask)


def rms_norm_backward_triton(
    grad: torch.Tensor, input: torch.Tensor, weight: torch.Tensor, epsilon: float
) -> tuple[torch.Tensor, torch.Tensor]:
    hidden = input.shape[-1]
    if grad.shape != input.shape or grad.dtype != input.dtype:
        raise ValueError(
            f"rms_norm_backward: grad {grad.dtype}{list(grad.shape)} must be input's "
            f"{input.dtype}{list(input.shape)}"
        )
    if weight.shape != (hidden,) or weight.dtype != input.dtype:
        got = f"{weight.dtype}{list(weight.shape)}"
        raise ValueError(f"rms_norm_backward: weight must be {input.dtype}[{hidden}], got {got}")
    outer, inner, grad_outer, grad_inner = row_geometry(grad, "grad")
    _, _, input_outer, input_inner = row_geometry(input, "input")
    grad_input = torch.empty(input.shape, dtype=input.dtype, device=input.device)
    shares = torch.zeros((outer * inner, hidden), dtype=torch.float32, device=input.device)
    if outer * inner and hidden:
        launcher(_rms_norm_backward_kernel)[(outer * inner,)](
            grad_input, shares, grad, input, weight, hidden, inner, grad_outer, grad_inner,
            input_outer, input_inner, weight.stride(0), epsilon,
            BLOCK=triton.next_power_of_2(hidden),
        )  # fmt: skip
    return grad_input, shares.sum(0).to(weight.dtype)


def _triton_formula(ctx: Any, grad: torch.Tensor) -> tuple:
    input, weight = ctx.saved_tensors
    # The kernel reads rows whose last dimension is contiguous, as the C++ one.
    grad_input, grad_weight = torch.ops.conformance.rms_norm_backward_triton(
        grad.contiguous(), input, weight, ctx.epsilon
    )
    return grad_input, grad_weight, None


@functools.cache
def register_triton() -> None:
    """Register the Triton ops and rms_norm's formula (once)."""
    triton_kernels.register(
        "conformance::rms_norm_triton", rms_norm_triton, mutates_args=(), fake=rms_norm_fake
    )
    triton_kernels.register(
        "conformance::rms_norm_backward_triton",
        rms_norm_backward_triton,
        mutates_args=(),
        fake=rms_norm_backward_fake,
    )
    torch.library.register_autograd(
        "conformance::rms_norm_triton", _triton_formula, setup_context=save_inputs
    )
