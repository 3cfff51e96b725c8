"""The norm family: RMS normalization as Specs.

The ops are opaque to the compiler, so eager and every compiled Mode agree
bit for bit; against the float64 reference each is judged within
``reference.NORM_ULP_BUDGET``.
"""

from __future__ import annotations

import functools
from typing import Any

from torch_conformance.families import prepare_native, prepared, triton_prepare
from torch_conformance.families.norm import ops, reference
from torch_conformance.families.norm.cases import (
    FUSED_ADD,
    RMS_NORM,
    RMS_NORM_BACKWARD,
    model_example,
)
from torch_conformance.kernels import triton as triton_kernels
from torch_conformance.oracles.core.calls import read_back
from torch_conformance.oracles.core.specification import Spec
from torch_conformance.oracles.strategies.hidden_rows import Rows, rows_batches, rows_cases


def norm_spec(name: str, op: Any, rows: Rows, **fields: Any) -> Spec:
    """A norm-family Spec: Cases of ``rows``, a Llama-sized example, the
    results read back by the program."""
    defaults = {
        "cases": rows_cases(rows),
        "batches": functools.partial(rows_batches, rows),
        "ulp_budget": reference.NORM_ULP_BUDGET,
        "program": read_back,
        "families": ("norm",),
        "examples": (model_example(rows),),
        "prepare": prepared(ops.register),
    }
    return Spec(name=name, op=op, **{**defaults, **fields})


# The specs' programs are the op and what it returns or writes: Inductor
# generates no kernel around it but the copies back into written inputs,
# which the rope family's specs already run through inductor_triton, so ci
# runs them in inductor and inductor_no_size_asserts.
SPECS = [
    # Its autograd formula runs the C++ backward kernel: gradients for input and weight.
    norm_spec(
        "rms_norm",
        "conformance::rms_norm",
        RMS_NORM,
        reference=reference.rms_norm_outputs,
        grads=("input", "weight"),
    ),
    # rms_norm's C++ backward kernel, which its autograd formula runs.
    norm_spec(
        "rms_norm_backward",
        "conformance::rms_norm_backward",
        RMS_NORM_BACKWARD,
        reference=reference.rms_norm_backward_outputs,
    ),
    # The C++ rms_norm ported to Triton: the same Cases and verdicts.
    norm_spec(
        "rms_norm_triton",
        "conformance::rms_norm_triton",
        RMS_NORM,
        reference=reference.rms_norm_outputs,
        grads=("input", "weight"),
        prepare=triton_prepare("torch_conformance.families.norm.triton_ops"),
        families=("norm", "triton"),
    ),
    # Its backward kernel, which the Triton rms_norm's autograd formula runs.
    norm_spec(
        "rms_norm_backward_triton",
        "conformance::rms_norm_backward_triton",
        RMS_NORM_BACKWARD,
        reference=reference.rms_norm_backward_outputs,
        prepare=triton_prepare("torch_conformance.families.norm.triton_ops"),
        families=("norm", "triton"),
    ),
    # The same kernel natively, as a triton_op Inductor sees into (GPU only).
    norm_spec(
        "rms_norm_triton_native",
        triton_kernels.on_cuda("conformance::rms_norm_triton", ()),
        RMS_NORM,
        reference=reference.rms_norm_outputs,
        prepare=prepare_native("torch_conformance.families.norm.triton_ops"),
        families=("norm", "triton"),
    ),
    # input and residual written in place: the writes verdict holds on both.
    norm_spec(
        "fused_add_rms_norm",
        "conformance::fused_add_rms_norm",
        FUSED_ADD,
        reference=reference.fused_add_rms_norm_writes,
    ),
]
