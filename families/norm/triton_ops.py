"""The norm family's Triton op: ``conformance::rms_norm`` ported to Triton,
the same schema and semantics (a fresh contiguous output). Each program
normalizes one row, its sum of squares a float32 tree reduction.

Imported only where Triton runs (see ``kernels/triton.py``).
"""

from __future__ import annotations

import functools

import torch
import triton
import triton.language as tl

from families.norm.ops import rms_norm_fake
from kernels import triton as triton_kernels
from kernels.rows import row_geometry
from kernels.triton import launcher


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
    source = input_ptr + (row // inner) * input_outer + (row % inner) * input_inner
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


@functools.cache
def register_triton() -> None:
    """Register the Triton op (once)."""
    triton_kernels.register(
        "conformance::rms_norm_triton", rms_norm_triton, mutates_args=(), fake=rms_norm_fake
    )
