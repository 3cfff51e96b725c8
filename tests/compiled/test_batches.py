"""Batches: one compiled program serves a batch, symbolic only in what varies."""

from __future__ import annotations

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from torch_conformance.families.rope.cases import rope_cases
from torch_conformance.oracles.core.buffers import Buffer, Case, View
from torch_conformance.oracles.core.findings import CheckFailure
from torch_conformance.oracles.core.meter import SPENT
from torch_conformance.oracles.core.signature import BatchError, batch_signature, bind, signature_of
from torch_conformance.oracles.core.specification import Spec
from torch_conformance.oracles.runner.property import run_property


def _geometry(args: dict) -> dict:
    return {
        name: (tuple(v.shape), v.stride(), v.storage_offset())
        for name, v in args.items()
        if isinstance(v, torch.Tensor)
    }


@settings(max_examples=60)
@given(case=rope_cases())
def test_the_compiled_program_makes_the_same_views_as_eager(case):
    # Eager binds the Case; the compiled program binds its Signature and sizes.
    buffers = case.meta_buffers()
    signature, sizes = signature_of(case)
    assert _geometry(bind(signature, buffers, sizes)) == _geometry(case.bind(buffers))


def _rows(count: int, width: int = 8) -> Case:
    return Case(
        buffers={"buffer": Buffer((count + 2, width), torch.float32)},
        args={"x": View("buffer", (("narrow", 0, 1, count),))},
    )


def test_a_batch_freezes_what_its_cases_share():
    cases = [_rows(3), _rows(5), _rows(9)]
    shared = batch_signature(cases)
    # narrow(0, 1, count): the start is shared (a constant), the length varies.
    assert shared.dynamic == (1,)
    assert shared.static_dims == (("buffer", 1, 8),)
    for case in cases:
        buffers = case.meta_buffers()
        frozen = bind(shared.signature, buffers, shared.sizes(case))
        assert _geometry(frozen) == _geometry(case.bind(buffers))


def test_cases_of_different_structures_do_not_batch():
    permuted = Case(
        buffers={"buffer": Buffer((8, 4), torch.float32)},
        args={"x": View("buffer", (("permute", (1, 0)),))},
    )
    with pytest.raises(BatchError, match="must share one Signature"):
        batch_signature([_rows(3), permuted])


def _doubled(x: torch.Tensor) -> torch.Tensor:
    return x * 2


def _row_batches(size: int) -> st.SearchStrategy[list[Case]]:
    # Counts from 2 up: a size of 1 would specialize and compile again.
    return st.lists(st.integers(2, 40).map(_rows), min_size=size, max_size=size)


def _spec(program=lambda op, **args: op(**args)) -> Spec:
    return Spec(
        name="doubled_rows",
        op=_doubled,
        cases=st.integers(2, 40).map(_rows),
        reference=None,
        program=program,
        batches=_row_batches,
    )


def test_a_batch_compiles_once_for_all_its_cases():
    before = SPENT.compiles
    run_property(_spec(), "compiled", settings(max_examples=40, database=None), batch_size=10)
    assert SPENT.compiles - before <= 4  # 40 Cases, 4 batches


def test_a_failure_in_a_batch_names_the_case_and_its_batch():
    def miscompiled(op, **args):
        out = op(**args)
        return out + 1 if torch.compiler.is_compiling() else out

    with pytest.raises(CheckFailure) as info:
        run_property(
            _spec(miscompiled), "compiled", settings(max_examples=20, database=None), batch_size=5
        )
    message = str(info.value)
    assert "differ bit for bit between inductor and eager" in message
    assert "(Case 1 of a batch of 5 sharing one program compiled with dynamic shapes)" in message
