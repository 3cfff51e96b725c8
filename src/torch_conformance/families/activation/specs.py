"""The activation family: vLLM-style ``silu_and_mul`` (C++ and Triton) as Specs.

The op writes into a caller-given ``result`` (``[..., d]``) from an input
``[..., 2 * d]``; both are rows of any padding. Opaque to the compiler, so
eager and every compiled Mode agree bit for bit; against float64 within
``SILU_ULP_BUDGET``.
"""

from __future__ import annotations

import functools
from typing import Any

import torch

from torch_conformance.families import prepare_native, prepared, triton_prepare
from torch_conformance.families.activation import ops, reference
from torch_conformance.kernels import triton as triton_kernels
from torch_conformance.oracles.core.calls import read_back
from torch_conformance.oracles.core.specification import Spec
from torch_conformance.oracles.strategies.hidden_rows import (
    Rows,
    contiguous_model,
    rows_batches,
    rows_case,
    rows_cases,
)

SILU_AND_MUL = Rows(rows={"result": 1, "input": 2}, order=("result", "input"))
SILU_AND_MUL_FUNCTIONAL = Rows(rows={"input": 2}, order=("input",))
SILU_AND_MUL_BACKWARD = Rows(rows={"grad": 1, "input": 2}, order=("grad", "input"))

# silu rounded to the dtype, then the product: the first rounding's error
# doubles in the result's ULPs where up moves the product down a binade, so
# 1.5 ULP rounding to nearest and under 3 where Triton's interpreter
# truncates to bfloat16. In float32, exp, 1 + exp and the division under
# silu round too: under 4.
SILU_ULP_BUDGET = 4


def _model_example(rows: Rows) -> tuple:
    """A Llama-sized MLP: 16 tokens of intermediate size 11008 in bfloat16."""
    model = contiguous_model(rows, 2, torch.bfloat16, 11008, {})
    return (rows_case(model, (16,), label="Llama-sized bf16 rows"),)


def silu_spec(name: str, op: Any, rows: Rows = SILU_AND_MUL, **fields: Any) -> Spec:
    defaults = {
        "cases": rows_cases(rows),
        "batches": functools.partial(rows_batches, rows),
        "reference": reference.silu_and_mul_writes,
        "ulp_budget": SILU_ULP_BUDGET,
        "program": read_back,
        "families": ("activation",),
        "examples": _model_example(rows),
        "prepare": prepared(ops.register),
    }
    return Spec(name=name, op=op, **{**defaults, **fields})


# The specs' programs are the op and what it returns or writes: Inductor
# generates no kernel around it but the copies back into written inputs,
# which the rope family's specs already run through inductor_triton, so ci
# runs them in inductor and inductor_no_size_asserts.
SPECS = [
    silu_spec("silu_and_mul", "conformance::silu_and_mul"),
    # The functional form, whose autograd formula runs the C++ backward kernel.
    silu_spec(
        "silu_and_mul_functional",
        "conformance::silu_and_mul_functional",
        SILU_AND_MUL_FUNCTIONAL,
        reference=reference.silu_and_mul_outputs,
        grads=("input",),
    ),
    # That backward kernel: the gradient for gate and up, in float32.
    silu_spec(
        "silu_and_mul_backward",
        "conformance::silu_and_mul_backward",
        SILU_AND_MUL_BACKWARD,
        reference=reference.silu_and_mul_backward_outputs,
    ),
    # The C++ silu_and_mul ported to Triton: the same Cases and verdicts.
    silu_spec(
        "silu_and_mul_triton",
        "conformance::silu_and_mul_triton",
        prepare=triton_prepare("torch_conformance.families.activation.triton_ops"),
        families=("activation", "triton"),
    ),
    # The functional form and its backward kernel ported to Triton.
    silu_spec(
        "silu_and_mul_functional_triton",
        "conformance::silu_and_mul_functional_triton",
        SILU_AND_MUL_FUNCTIONAL,
        reference=reference.silu_and_mul_outputs,
        grads=("input",),
        prepare=triton_prepare("torch_conformance.families.activation.triton_ops"),
        families=("activation", "triton"),
    ),
    silu_spec(
        "silu_and_mul_backward_triton",
        "conformance::silu_and_mul_backward_triton",
        SILU_AND_MUL_BACKWARD,
        reference=reference.silu_and_mul_backward_outputs,
        prepare=triton_prepare("torch_conformance.families.activation.triton_ops"),
        families=("activation", "triton"),
    ),
    # The same kernel natively, as a triton_op Inductor sees into (GPU only).
    silu_spec(
        "silu_and_mul_triton_native",
        triton_kernels.on_cuda("conformance::silu_and_mul_triton", ("result",)),
        prepare=prepare_native("torch_conformance.families.activation.triton_ops"),
        families=("activation", "triton"),
    ),
]
