"""The MRoPE family: section selections and the multimodal rotary op as Specs.

The selections move data, so eager, every compiled Mode and the float64
reference agree bit for bit. The rotary op is judged against float64 within
the rope family's ULP budget; between eager and compiled programs it is
opaque, so bit-exact.
"""

from __future__ import annotations

import functools
from typing import Any

from torch_conformance.families import prepare_native, prepared, triton_prepare
from torch_conformance.families.mrope import cases, ops, reference
from torch_conformance.families.rope.specs import (
    ROPE_ULP_BUDGET,
    consume_rotated,
)
from torch_conformance.kernels import triton as triton_kernels
from torch_conformance.oracles.core.specification import Spec

# The program reads the selection three times (``read_outputs``), so each
# element of x's gradient sums up to three upstream values: two roundings,
# each within half a ULP of the terms' magnitude.
SELECTION_GRAD_ULP_BUDGET = 1


def selection_spec(name: str, op: Any, **fields: Any) -> Spec:
    """A selection Spec: ``op(x, mrope_section[, interleaved])`` -> ``[T, half]``."""
    with_interleaved = fields.pop("with_interleaved", False)
    defaults = {
        "cases": cases.selection_cases(with_interleaved),
        "batches": functools.partial(cases.selection_batches, with_interleaved=with_interleaved),
        "examples": cases.selection_examples(with_interleaved),
        "families": ("mrope",),
    }
    return Spec(name=name, op=op, **{**defaults, **fields})


def rotary_spec(name: str, op: str, **fields: Any) -> Spec:
    """A Spec of the in-place rotary op, in the rope family's program."""
    defaults = {
        "cases": cases.mrope_cases(),
        "batches": cases.mrope_batches,
        "reference": reference.mrope_writes,
        "ulp_budget": ROPE_ULP_BUDGET,
        "program": consume_rotated,
        "families": ("mrope",),
        "examples": cases.MODEL_CASES,
        "prepare": prepared(ops.register),
    }
    return Spec(name=name, op=op, **{**defaults, **fields})


SPECS = [
    selection_spec(
        "apply_interleaved_rope_slices",
        ops.apply_interleaved_rope_slices,
        reference=reference.interleaved_outputs,
        grads=("x",),
        grad_ulp_budget=SELECTION_GRAD_ULP_BUDGET,
    ),
    selection_spec(
        "apply_interleaved_rope_where",
        ops.apply_interleaved_rope_where,
        reference=reference.interleaved_outputs,
        grads=("x",),
        grad_ulp_budget=SELECTION_GRAD_ULP_BUDGET,
    ),
    selection_spec(
        "apply_chunked_sections",
        ops.apply_chunked_sections,
        reference=reference.chunked_outputs,
        grads=("x",),
        grad_ulp_budget=SELECTION_GRAD_ULP_BUDGET,
    ),
    selection_spec(
        "mrope_sections",
        "conformance::mrope_sections",
        reference=reference.sections_outputs,
        with_interleaved=True,
        prepare=prepared(ops.register),
    ),
    rotary_spec("mrope_rotary_embedding", "conformance::mrope_rotary_embedding"),
    rotary_spec(
        "mrope_rotary_embedding_triton",
        "conformance::mrope_rotary_embedding_triton",
        prepare=triton_prepare("torch_conformance.families.mrope.triton_ops"),
        families=("mrope", "triton"),
    ),
    # The same kernel natively, as a triton_op Inductor sees into (GPU only).
    rotary_spec(
        "mrope_rotary_embedding_triton_native",
        triton_kernels.on_cuda("conformance::mrope_rotary_embedding_triton", ("query", "key")),
        prepare=prepare_native("torch_conformance.families.mrope.triton_ops"),
        families=("mrope", "triton"),
    ),
]
