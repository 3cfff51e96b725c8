"""The activation family: vLLM-style ``silu_and_mul`` as a Spec.

The op writes into a caller-given ``result`` (``[..., d]``) from an input
``[..., 2 * d]``; both are rows of any padding. Opaque to the compiler, so
eager and every compiled Mode agree bit for bit; against float64 within
``SILU_ULP_BUDGET``.
"""

from __future__ import annotations

import functools

import torch

from families import prepared
from families.activation import ops, reference
from oracles.rows import Rows, contiguous_model, rows_batches, rows_case, rows_cases
from oracles.spec import Spec, read_back

SILU_AND_MUL = Rows(rows={"result": 1, "input": 2}, order=("result", "input"))

# Four roundings, each under half an ULP relative: in float32 exp, 1 + exp
# and the division under silu, then the product (in 16-bit dtypes silu
# rounded to the dtype, then the product). ULPs are counted at the power of
# two below a value, which can double a relative error's count: 4.
SILU_ULP_BUDGET = 4


def _model_example() -> tuple:
    """A Llama-sized MLP: 16 tokens of intermediate size 11008 in bfloat16."""
    model = contiguous_model(SILU_AND_MUL, 2, torch.bfloat16, 11008, {})
    return (rows_case(model, (16,), label="Llama-sized bf16 rows"),)


SPECS = [
    Spec(
        name="silu_and_mul",
        op="conformance::silu_and_mul",
        cases=rows_cases(SILU_AND_MUL),
        batches=functools.partial(rows_batches, SILU_AND_MUL),
        reference=reference.silu_and_mul_writes,
        ulp_budget=SILU_ULP_BUDGET,
        program=read_back,
        families=("activation",),
        examples=_model_example(),
        prepare=prepared(ops.register),
    ),
]
