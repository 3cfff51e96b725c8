"""The norm family: RMS normalization as Specs.

Both ops are opaque to the compiler, so eager and every compiled Mode agree
bit for bit; against the float64 reference each is judged within
``NORM_ULP_BUDGET``.
"""

from __future__ import annotations

import functools
from typing import Any

from families import prepared
from families.norm import ops, reference
from families.norm.cases import FUSED_ADD, RMS_NORM, model_example
from oracles.rows import Rows, rows_batches, rows_cases
from oracles.spec import Spec, read_back

# Two roundings to the dtype (x * inverse, then * weight: 1 ULP) and, in
# float32, the float inverse square root and mean (under 1 ULP more); the
# float32 accumulation of the squares is in the reference's scale.
NORM_ULP_BUDGET = 3


def norm_spec(name: str, op: str, rows: Rows, **fields: Any) -> Spec:
    """A norm-family Spec: Cases of ``rows``, a Llama-sized example, the
    results read back by the program."""
    defaults = {
        "cases": rows_cases(rows),
        "batches": functools.partial(rows_batches, rows),
        "ulp_budget": NORM_ULP_BUDGET,
        "program": read_back,
        "families": ("norm",),
        "examples": (model_example(rows),),
        "prepare": prepared(ops.register),
    }
    return Spec(name=name, op=op, **{**defaults, **fields})


SPECS = [
    norm_spec("rms_norm", "conformance::rms_norm", RMS_NORM, reference=reference.rms_norm_outputs),
    # input and residual written in place: the writes verdict holds on both.
    norm_spec(
        "fused_add_rms_norm",
        "conformance::fused_add_rms_norm",
        FUSED_ADD,
        reference=reference.fused_add_rms_norm_writes,
    ),
]
