"""The collective family: an all-gather whose output shape depends on the
configured group size, as a Spec.

The Spec configures a group of 3 (neither 1 nor the usual 2 or 4, so a fake
that reads another setting is caught). The op moves data: eager, fake,
every compiled Mode and the reference agree bit for bit.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

import torch
from hypothesis import strategies as st

from torch_conformance.families import prepared
from torch_conformance.families.collective import ops, reference
from torch_conformance.oracles.core.specification import Spec
from torch_conformance.oracles.strategies.hidden_rows import (
    FLOAT_DTYPES,
    Rows,
    contiguous_model,
    rows_batches,
    rows_case,
    rows_cases,
)

GROUP = 3


def _dim(draw: st.DrawFn, ndim: int) -> dict:
    return {"dim": draw(st.integers(-ndim, ndim - 1))}


# x of any layout (its last dimension too), gathered along any dimension.
ALL_GATHER = Rows(
    rows={"x": 1},
    constants=_dim,
    order=("x", "dim"),
    dtypes=(*FLOAT_DTYPES, torch.int64),
    ranks=(1, 2, 3),
    last_dim_contiguous=False,
)


def configured(register: Callable[[], None], size: int) -> Callable[[], None]:
    """``register``, then the group size set to ``size``."""

    def prepare() -> None:
        register()
        ops.set_tp_size(size)

    return prepared(prepare)


def _model_example() -> tuple:
    """Gathering 16 tokens' bf16 hidden states of 4096 along the tokens."""
    model = contiguous_model(ALL_GATHER, 2, torch.bfloat16, 4096, {"dim": 0})
    return (rows_case(model, (16,), label="bf16 hidden states along tokens"),)


def gather_spec(name: str, op: str, **fields) -> Spec:
    defaults = {
        "cases": rows_cases(ALL_GATHER),
        "batches": functools.partial(rows_batches, ALL_GATHER),
        "reference": reference.all_gather_outputs,
        "families": ("collective",),
        "examples": _model_example(),
        "prepare": configured(ops.register, GROUP),
    }
    return Spec(name=name, op=op, **{**defaults, **fields})


# The specs' programs are the op and what it returns or writes: Inductor
# generates no kernel around it but the copies back into written inputs,
# which the rope family's specs already run through inductor_triton, so ci
# runs them in inductor and inductor_no_size_asserts.
SPECS = [gather_spec("all_gather", "conformance::all_gather")]
