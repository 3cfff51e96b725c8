"""The norm family's arguments: rows of a hidden dimension (``torch_conformance.rows``),
a weight of any stride, an epsilon."""

from __future__ import annotations

import torch
from hypothesis import strategies as st

from torch_conformance.oracles.core.buffers import Case
from torch_conformance.oracles.strategies.hidden_rows import Rows, contiguous_model, rows_case


def _epsilon(draw: st.DrawFn, ndim: int) -> dict:
    return {"epsilon": draw(st.sampled_from((1e-6, 1e-5)))}


RMS_NORM = Rows(
    rows={"input": 1},
    vectors={"weight": 1},
    constants=_epsilon,
    order=("input", "weight", "epsilon"),
)
RMS_NORM_BACKWARD = Rows(
    rows={"grad": 1, "input": 1},
    vectors={"weight": 1},
    constants=_epsilon,
    order=("grad", "input", "weight", "epsilon"),
)
FUSED_ADD = Rows(
    rows={"input": 1, "residual": 1},
    vectors={"weight": 1},
    constants=_epsilon,
    order=("input", "residual", "weight", "epsilon"),
)


def model_example(rows: Rows) -> Case:
    """A Llama-sized layer: 16 tokens of hidden 4096 in bfloat16, eps 1e-6."""
    model = contiguous_model(rows, 2, torch.bfloat16, 4096, {"epsilon": 1e-6})
    return rows_case(model, (16,), label="Llama-sized bf16 rows")
