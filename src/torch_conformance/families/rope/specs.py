"""The rotary-embedding family: the built-in reference ops as Specs."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import torch

from torch_conformance.families import prepare_native, prepared, triton_prepare
from torch_conformance.families.rope import ops, reference
from torch_conformance.families.rope.cases import (
    DTYPES,
    fused_qkv_seed_case,
    rope_batches,
    rope_cases,
)
from torch_conformance.kernels import triton as triton_kernels
from torch_conformance.oracles.core.kernel_domain import Domain
from torch_conformance.oracles.core.specification import Spec

# A C++ kernel computes in float and rounds once per product and difference:
# within 2 ULP of the float64 reference at the magnitude of its terms, in
# every dtype. The pure-PyTorch form rounds each product in the tensor's own
# dtype, which the same budget covers.
ROPE_ULP_BUDGET = 2


def consume_rotated(op: Callable, /, **args: Any) -> torch.Tensor:
    """Model code around the op: the rotated q and k, gathered (data movement only).

    In-place ops are read back through their arguments, so the compiled graph
    depends on the write; ops that return tensors are read through their
    outputs, so Inductor checks the strides the fake promised.
    """
    out = op(**args)
    rotated = (args["query"], args["key"]) if out is None else out
    return torch.cat([x.reshape(-1) for x in rotated if x is not None])


def rope_spec(name: str, op: Any, *, optional_key: bool = False, **fields: Any) -> Spec:
    """A rope-family Spec: the rope Cases (inside the spec's domain, key None
    too where ``optional_key``), the seed's example, the rope program."""
    draw = {"optional_key": optional_key, "domain": fields.get("domain")}
    defaults = {
        "cases": rope_cases(**draw),
        "batches": functools.partial(rope_batches, **draw),
        "reference": reference.rope_outputs,
        "ulp_budget": ROPE_ULP_BUDGET,
        "program": consume_rotated,
        "families": ("rope",),
        "examples": (fused_qkv_seed_case(),),
        "prepare": prepared(ops.register),
    }
    return Spec(name=name, op=op, **{**defaults, **fields})


SPECS = [
    # key is optional (`Tensor(b!)? key`), as in the serving frameworks' kernels.
    rope_spec(
        "rotary_embedding",
        "conformance::rotary_embedding",
        reference=reference.rope_writes,
        optional_key=True,
    ),
    # The kernels dispatch float64 too, which the family does not draw: the
    # domain-edge report says what they do with it.
    # Its autograd formula runs the same kernel backwards (``ops.register``).
    rope_spec(
        "rotary_embedding_functional",
        "conformance::rotary_embedding_functional",
        domain=Domain(dtypes=DTYPES),
        grads=("query", "key"),
    ),
    # The C++ rotary_embedding ported to Triton: the same Cases and verdicts.
    rope_spec(
        "rotary_embedding_triton",
        "conformance::rotary_embedding_triton",
        reference=reference.rope_writes,
        optional_key=True,
        prepare=triton_prepare("torch_conformance.families.rope.triton_ops"),
        families=("rope", "triton"),
    ),
    # The functional op ported to Triton, differentiable by the same inverse rotation.
    rope_spec(
        "rotary_embedding_functional_triton",
        "conformance::rotary_embedding_functional_triton",
        domain=Domain(dtypes=DTYPES),
        grads=("query", "key"),
        prepare=triton_prepare("torch_conformance.families.rope.triton_ops"),
        families=("rope", "triton"),
    ),
    # The same kernel natively, as a triton_op Inductor sees into (GPU only).
    rope_spec(
        "rotary_embedding_triton_native",
        triton_kernels.on_cuda("conformance::rotary_embedding_triton", ("query", "key")),
        reference=reference.rope_writes,
        optional_key=True,
        prepare=prepare_native("torch_conformance.families.rope.triton_ops"),
        families=("rope", "triton"),
    ),
    # Differentiable, as model code: its gradients judged too (the backward checks).
    rope_spec(
        "rotary_embedding_torch",
        ops.rotary_embedding_torch,
        bit_exact=False,
        prepare=None,
        grads=("query", "key"),
    ),
]
