"""The activation family's Triton op: ``conformance::silu_and_mul`` ported to
Triton, the same schema and semantics (``result`` written in place).

Imported only where Triton runs (see ``kernels/triton.py``).
"""

from __future__ import annotations

import functools

import torch
import triton
import triton.language as tl

from kernels import triton as triton_kernels
from kernels.rows import row_geometry
from kernels.triton import launcher

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
    outer = row // inner
    within = row % inner
    columns = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    mask = columns < d
    source = input_ptr + outer * input_outer + within * input_inner
    gate = tl.load(source + columns, mask=mask, other=0)
    up = tl.load(source + d + columns, mask=mask, other=0)
    g = gate.to(tl.float32)
    # silu rounded to the dtype, then the product, as the C++ kernel.
    activated = (g / (1.0 + tl.exp(-g))).to(gate.dtype)
    out = (activated.to(tl.float32) * up.to(tl.float32)).to(gate.dtype)
    target = result_ptr + outer * result_outer + within * result_inner
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


@functools.cache
def register_triton() -> None:
    """Register the Triton op (once)."""
    triton_kernels.register(
        "conformance::silu_and_mul_triton", silu_and_mul_triton, mutates_args=("result",)
    )
