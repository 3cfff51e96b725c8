"""The rope strategies produce every shape, layout and parameter they promise."""

from __future__ import annotations

import torch
from hypothesis import find, given, settings
from hypothesis import strategies as st

from torch_conformance.families.rope.cases import (
    HEAD_SIZES,
    fused_qkv_seed_case,
    rope_batches,
    rope_cases,
    rope_cases_of,
    rope_models,
    rope_structures,
)
from torch_conformance.oracles.core.buffers import Case
from torch_conformance.oracles.core.signature import batch_signature, signature_of

# Deterministic and patient: a layout that exists must always be found.
FIND = settings(max_examples=5000, derandomize=True, database=None)


def bound(case: Case) -> dict:
    return case.bind(case.allocate())


@settings(max_examples=150)
@given(case=rope_cases())
def test_cases_are_valid_kernel_inputs(case):
    args = bound(case)
    query, key, positions, cache = (
        args["query"],
        args["key"],
        args["positions"],
        args["cos_sin_cache"],
    )
    assert query.stride(-1) == 1 and key.stride(-1) == 1
    assert query.shape[: -1 if query.dim() == 2 else -2] == positions.shape
    assert query.shape[-1] % args["head_size"] == 0
    if query.dim() > 2:
        assert query.shape[-1] == args["head_size"]
    assert query.dtype == key.dtype == cache.dtype
    assert cache.shape[1] % 2 == 0 and cache.shape[1] <= args["head_size"]
    assert int(positions.min()) >= 0 and int(positions.max()) < cache.shape[0]
    heads_q = query.shape[-1] // args["head_size"] if query.dim() == 2 else query.shape[-2]
    heads_k = key.shape[-1] // args["head_size"] if key.dim() == 2 else key.shape[-2]
    assert heads_q % heads_k == 0


def _find(predicate) -> dict:
    return bound(find(rope_cases(), lambda case: predicate(bound(case)), settings=FIND))


def test_each_rank():
    for ndim in (2, 3, 4):
        assert _find(lambda a, n=ndim: a["query"].dim() == n)["query"].dim() == ndim


def test_fused_qkv_column_slices():
    args = _find(
        lambda a: a["key"].untyped_storage().data_ptr() == a["query"].untyped_storage().data_ptr()
    )
    assert args["key"].storage_offset() > 0


def test_single_token_partial_rotary_gqa_and_broadcast_positions():
    assert _find(lambda a: a["positions"].numel() == 1)["positions"].numel() == 1
    assert _find(lambda a: a["cos_sin_cache"].shape[1] < a["head_size"])
    assert _find(lambda a: a["query"].numel() > a["key"].numel())
    assert _find(lambda a: a["positions"].numel() > 1 and 0 in a["positions"].stride())


def test_each_head_size_dtype_and_style():
    for size in HEAD_SIZES:
        assert _find(lambda a, s=size: a["head_size"] == s)
    for dtype in (torch.float32, torch.bfloat16, torch.float16):
        assert _find(lambda a, d=dtype: a["query"].dtype == d)
    assert _find(lambda a: a["is_neox"]) and _find(lambda a: not a["is_neox"])


def test_permuted_heads_and_row_gaps():
    args = _find(lambda a: a["query"].dim() == 3 and a["query"].stride(0) < a["query"].stride(1))
    assert args["query"].stride(-1) == 1


def test_seed_case_is_the_fused_qkv_model():
    args = bound(fused_qkv_seed_case())
    assert tuple(args["query"].shape) == (32, 4096)
    assert args["query"].stride() == (6144, 1)
    assert tuple(args["key"].shape) == (32, 1024)
    assert args["key"].stride() == (6144, 1) and args["key"].storage_offset() == 4096
    assert args["head_size"] == 128


def test_materializing_twice_gives_equal_independent_tensors():
    case = fused_qkv_seed_case()
    first, second = case.allocate(), case.allocate()
    assert torch.equal(first["qkv"], second["qkv"])
    assert first["qkv"].data_ptr() != second["qkv"].data_ptr()


@settings(max_examples=30)
@given(structure=rope_structures(), data=st.data())
def test_a_structure_fixes_the_signature_whatever_the_sizes(structure, data):
    first = data.draw(rope_models(structure).flatmap(rope_cases_of))
    second = data.draw(rope_models(structure).flatmap(rope_cases_of))
    assert signature_of(first)[0] == signature_of(second)[0]


def model_dims(case: Case) -> tuple:
    """What a model fixes: everything but the token dimensions and cache rows."""
    args = case.bind(case.meta_buffers())
    tokens = args["positions"].dim()
    return (
        args["query"].shape[tokens:],
        args["key"].shape[tokens:],
        args["query"].dtype,
        args["cos_sin_cache"].shape[1],
        args["head_size"],
        args["is_neox"],
    )


@settings(max_examples=30)
@given(batch=rope_batches(6))
def test_a_batch_is_one_model_at_other_token_counts(batch):
    assert len(batch) == 6
    assert len({model_dims(case) for case in batch}) == 1
    batch_signature(batch)  # raises unless the Cases share a Signature
