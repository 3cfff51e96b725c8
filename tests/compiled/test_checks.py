"""Check-level Findings: an op that crashes, a reference that disagrees in form."""

from __future__ import annotations

import dataclasses

import pytest
import torch
from hypothesis import settings
from hypothesis import strategies as st
from torch.multiprocessing.reductions import StorageWeakRef

from tests.zoo_helpers import needs_kernels
from torch_conformance.families.rope import reference
from torch_conformance.families.rope import specs as rope
from torch_conformance.families.rope.cases import fused_qkv_seed_case
from torch_conformance.oracles import checks
from torch_conformance.oracles.checks.reference import check_reference
from torch_conformance.oracles.checks.schema import case_dependent_aliasing, check_schema
from torch_conformance.oracles.core.buffers import Buffer, Case, View
from torch_conformance.oracles.core.expectation import Expectation, exact
from torch_conformance.oracles.core.findings import CheckFailure, Finding, error_text
from torch_conformance.oracles.core.specification import Spec
from torch_conformance.oracles.modes.fake import FAKE
from torch_conformance.oracles.runner.property import run_property

pytestmark = needs_kernels


def _spec(name: str):
    [spec] = [s for s in rope.SPECS if s.name == name]
    spec.prepare()
    return spec


def test_an_op_that_raises_on_a_generated_case_is_a_crash_finding():
    seed = fused_qkv_seed_case()
    transposed = dict(seed.args, query=View("q", (("permute", (1, 0)),)))
    case = Case({**seed.buffers, "q": Buffer((4096, 32), torch.bfloat16)}, transposed)
    [finding] = check_reference(_spec("rotary_embedding"), case)
    assert finding.verdict == "crash"
    assert "conformance.rotary_embedding.default raised in eager mode" in finding.message
    assert "the last dimension of query must be contiguous" in finding.message
    assert check_reference(_spec("rotary_embedding"), seed) == []


def test_a_reference_with_another_number_of_outputs_is_reported():
    spec = dataclasses.replace(
        _spec("rotary_embedding_functional"), reference=reference.rope_writes
    )
    messages = [f.message for f in check_reference(spec, fused_qkv_seed_case())]
    assert (
        "conformance.rotary_embedding_functional.default returns 2 output(s) but the "
        "reference gives 0"
    ) in messages


def test_fake_arguments_keep_the_real_views_and_their_shared_storage():
    # q and k are column slices of one qkv buffer: their fakes must share
    # one fake storage, or a fake returning a view of qkv could not be judged.
    case = fused_qkv_seed_case()
    fake = FAKE.run(_spec("rotary_embedding_functional"), case).args
    real = case.bind(case.allocate())
    for name in ("query", "key", "positions", "cos_sin_cache"):
        assert fake[name].device == real[name].device
        assert fake[name].shape == real[name].shape
        assert fake[name].stride() == real[name].stride()
        assert fake[name].storage_offset() == real[name].storage_offset()

    def storage(name):
        return StorageWeakRef(fake[name].untyped_storage())

    assert storage("query") == storage("key")
    assert storage("query") != storage("positions")


torch.library.define("conformance_tests::returns_input", "(Tensor x) -> Tensor")


@torch.library.impl("conformance_tests::returns_input", "cpu")
def _(x):
    return x


def test_an_op_that_always_aliases_keeps_the_one_fix_advice():
    spec = Spec("returns_input", "conformance_tests::returns_input", st.nothing(), None)
    cases = [Case({"x": Buffer((n,), torch.float32)}, {"x": View("x")}) for n in (1, 3, 5)]
    found = check_schema(spec, cases[0])
    assert case_dependent_aliasing(spec, found, cases[1:]) == found
    message = str(found[0])
    assert "declares no alias for it: if the kernel writes it, declare it written" in message
    assert "(Tensor(a!)) and return nothing (-> ())" in message


def test_a_finding_outside_its_checks_verdicts_is_the_suites_error(monkeypatch):
    [spec] = [s for s in rope.SPECS if s.name == "rotary_embedding_torch"]
    check = checks.CHECKS["reference"]
    bogus = dataclasses.replace(check, judge=lambda *args: [Finding("bogus", "x")])
    monkeypatch.setitem(checks.CHECKS, "reference", bogus)
    with pytest.raises(RuntimeError, match="undeclared verdicts {'bogus'}"):
        run_property(spec, "reference", settings(max_examples=1, database=None))
    monkeypatch.setitem(checks.CHECKS, "reference", check)
    run_property(spec, "reference", settings(max_examples=1, database=None))  # declared: silent


def test_a_dynamo_error_names_the_user_code_it_was_tracing():
    error = RuntimeError(
        "NotImplementedError: UserDefinedObjectVariable(_Default)\n\nfrom user code:\n"
        '   File "oracles/signature.py", line 132, in bind\n    return bind_views(...)\n'
        '   File "oracles/case.py", line 152, in bind_views\n    if value is not DEFAULT\n'
    )
    assert error_text(error) == (
        "RuntimeError: NotImplementedError: UserDefinedObjectVariable(_Default) / tracing "
        'File "oracles/case.py", line 152, in bind_views'
    )
    assert error_text(ValueError("one\n\ntwo\nthree\nfour")) == "ValueError: one / two / three"


def test_a_failed_cpp_compile_names_the_compilers_first_error_not_its_command():
    # As Inductor's CppCompileError words it: the command line runs to 2 KB.
    error = RuntimeError(
        "CppCompileError: C++ compile error\n\nCommand:\ng++ /tmp/x/k.main.cpp -O3 -shared\n\n"
        "Output:\n/site/torch/include/cpp_prefix.h: In instantiation of 'fetch_value':\n"
        "/site/torch/include/cpp_prefix.h:1027:11: error: no matching function for call\n"
        "/tmp/x/k.main.cpp:40:2: error: a second complaint\n"
    )
    assert error_text(error) == (
        "RuntimeError: CppCompileError: C++ compile error / "
        "cpp_prefix.h:1027:11: error: no matching function for call"
    )


def _bare_assert() -> None:
    raise AssertionError  # pytest rewrites an assert statement here to say what failed


def test_a_bare_compiler_assertion_names_where_it_was_raised():
    # As Inductor wraps one: its own message says nothing of where it failed.
    try:
        try:
            _bare_assert()
        except AssertionError as inner:
            raise RuntimeError("AssertionError: \nSet TORCHDYNAMO_VERBOSE=1") from inner
    except RuntimeError as error:
        text = error_text(error)
    assert text.startswith(
        "RuntimeError: AssertionError: / AssertionError with no message, raised at "
    ), text
    assert "test_checks.py:" in text
    assert text.endswith(" in _bare_assert / Set TORCHDYNAMO_VERBOSE=1"), text
    assert "raised at" not in error_text(ValueError("says what it is"))


torch.library.define("conformance_check_tests::bump_", "(Tensor(a!) x) -> Tensor(a!)")


@torch.library.impl("conformance_check_tests::bump_", "cpu")
def _bump(x):
    return x.mul_(2)


@torch.library.register_fake("conformance_check_tests::bump_")
def _bump_fake(x):
    return x


def test_a_schema_no_compiler_can_functionalize_is_blamed_on_the_schema():
    cases = st.just(Case({"x": Buffer((3,), torch.float32)}, {"x": View("x")}))
    spec = Spec("bump_", "conformance_check_tests::bump_", cases, None)
    with pytest.raises(CheckFailure) as failed:
        run_property(
            spec, "compiled", settings(max_examples=1, database=None), "inductor", batch_size=1
        )
    report = failed.value.report()
    assert "[compiled] torch.compile cannot compile conformance_check_tests.bump_" in report
    assert "for its schema `conformance_check_tests::bump_(Tensor(a!) x) -> Tensor(a!)`" in report
    assert "(its returns alias its written arguments)" in report
    assert "[stage]" not in report and "first compiler stage to disagree" not in report


def _doubles(x):
    return x * 2


def _identity(x):
    return Expectation(outputs=(exact(x),))


def _row_cases(sizes):
    return st.builds(
        lambda n, seed: Case({"x": Buffer((n,), torch.float32)}, {"x": View("x")}, seed),
        sizes,
        st.integers(0, 9),
    )


def test_a_failing_explicit_example_is_reported_as_written_and_says_how_to_shrink():
    big = Case({"x": Buffer((37,), torch.float32)}, {"x": View("x")}, 1, label="big")
    spec = Spec("doubles", _doubles, _row_cases(st.integers(1, 40)), _identity, examples=(big,))
    with pytest.raises(CheckFailure) as failed:
        run_property(spec, "reference", settings(max_examples=20, database=None))
    [failure] = failed.value.failures
    assert "big: x=float32[37]" in failure.heading
    assert "(an explicit example of the spec, not shrunk: rerun with --skip-examples" in (
        failure.heading
    )
    # Without the examples, the search finds a generated Case and shrinks it.
    with pytest.raises(CheckFailure) as failed:
        run_property(spec, "reference", settings(max_examples=20, database=None), examples=False)
    [failure] = failed.value.failures
    assert "x=float32[1]" in failure.heading and "explicit" not in failure.heading
