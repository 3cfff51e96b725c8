"""The row strategies draw what they claim: rows with a contiguous last
dimension (or any strides where asked), padded and permuted leading
dimensions, per-channel vectors of any stride, batches one program serves."""

from __future__ import annotations

import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from torch_conformance.families.activation.specs import SILU_AND_MUL
from torch_conformance.families.collective.specs import ALL_GATHER
from torch_conformance.families.norm.cases import FUSED_ADD
from torch_conformance.oracles.core.signature import batch_signature
from torch_conformance.oracles.strategies.hidden_rows import rows_batches, rows_cases
from torch_conformance.oracles.strategies.sampling import sample


def _tensors(case) -> dict[str, torch.Tensor]:
    return {
        name: value
        for name, value in case.bind(case.meta_buffers()).items()
        if isinstance(value, torch.Tensor)
    }


@settings(max_examples=100, database=None)
@given(case=rows_cases(SILU_AND_MUL))
def test_rows_have_their_widths_and_a_contiguous_last_dimension(case):
    tensors = _tensors(case)
    result, input = tensors["result"], tensors["input"]
    assert input.shape[:-1] == result.shape[:-1] and input.shape[-1] == 2 * result.shape[-1]
    assert result.dim() in (2, 3)
    for x in tensors.values():
        assert x.shape[-1] <= 1 or x.stride(-1) == 1


def test_rows_are_padded_offset_and_permuted_and_vectors_strided():
    cases = sample(rows_cases(FUSED_ADD), 200)
    inputs = [_tensors(c)["input"] for c in cases]
    assert any(x.storage_offset() > 0 for x in inputs)
    assert any(x.dim() == 2 and x.stride(0) > x.shape[1] for x in inputs), "gaps between rows"
    assert any(x.dim() == 3 and x.stride(0) < x.stride(1) for x in inputs), "permuted B and S"
    assert any(_tensors(c)["weight"].stride(0) > 1 for c in cases), "a strided weight"
    assert {x.dtype for x in inputs} == {torch.float32, torch.bfloat16, torch.float16}


def test_any_strides_where_asked():
    xs = [_tensors(c)["x"] for c in sample(rows_cases(ALL_GATHER), 200)]
    assert {x.dim() for x in xs} == {1, 2, 3}
    assert any(x.shape[-1] > 1 and x.stride(-1) != 1 for x in xs)
    assert torch.int64 in {x.dtype for x in xs}


@settings(max_examples=30, database=None)
@given(batch=st.integers(2, 10).flatmap(lambda n: rows_batches(FUSED_ADD, n)))
def test_a_batch_shares_one_signature(batch):
    batch_signature(batch)  # raises unless one compiled program serves them all
    assert len({c.args["epsilon"] for c in batch}) == 1
