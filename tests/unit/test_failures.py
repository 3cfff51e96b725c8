"""How the runner tells failures apart and stops shrinking: pure logic,
on specs of plain Python that compile nothing."""

from __future__ import annotations

import hypothesis.internal.conjecture.engine as hypothesis_engine
import pytest
import torch
from hypothesis import settings
from hypothesis import strategies as st

from torch_conformance.oracles.core.buffers import Buffer, Case, View
from torch_conformance.oracles.core.expectation import Expectation, exact
from torch_conformance.oracles.core.findings import CheckFailure, ConformanceFailure, Finding
from torch_conformance.oracles.core.specification import Spec
from torch_conformance.oracles.runner.failures import distinct, failure_class, once
from torch_conformance.oracles.runner.property import run_property

CI = settings.get_profile("ci")


def test_a_failure_is_dropped_only_for_one_that_shows_all_it_shows():
    def found(*shapes: str) -> ConformanceFailure:
        return failure_class(frozenset(shapes))("fake", "op", "a Case", [])

    less, more, other = found("[a] x"), found("[a] x", "[b] y"), found("[c] z")
    later = found("[b] y")
    assert distinct([less, more, other], [later]) == [more, other]
    assert more.partial == [less, later] and other.partial == []
    assert distinct([other, more]) == [other, more]


def test_failures_that_finishing_made_alike_are_listedonce():
    def cut(size: int, verdict: str = "compiled") -> ConformanceFailure:
        findings = [
            Finding(verdict, f"failed on [{size}]"),
            Finding("program", "def p(): ...", False),
        ]
        return failure_class(frozenset({str(size)}))("programs", "op", "a Case", findings)

    first, same, other = cut(13), cut(16), cut(13, "values")
    assert once([first, same, other]) == [first, other]


def _calls_after_the_first_failure(shrink_seconds: float) -> int:
    calls = []

    def off_by_one(x):
        calls.append(None)
        return x + 1 if calls else x

    def rows(n: int) -> Case:
        return Case({"x": Buffer((n,), torch.float32)}, {"x": View("x")}, seed=n)

    spec = Spec("off_by_one", off_by_one, st.integers(1, 10_000).map(rows), reference_copy)
    with pytest.raises(CheckFailure):
        run_property(spec, "reference", CI, shrink_seconds=shrink_seconds)
    return len(calls)


def reference_copy(x):
    return Expectation(outputs=(exact(x),))


def test_shrinking_stops_at_its_budget():
    # Every shrink step of a compiled check compiles: the budget bounds the
    # time from the first failure to the reported Case.
    assert _calls_after_the_first_failure(0) < _calls_after_the_first_failure(60)
    assert hypothesis_engine.MAX_SHRINKING_SECONDS == 300  # restored
