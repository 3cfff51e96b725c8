"""The deployment Modes: the program exported with torch.export and run as
exported (``export``), and compiled by AOTInductor, packaged, loaded and run
(``aoti``), judged as the compiled check judges torch.compile: silent where
they agree with eager, a Finding where they do not, and no verdict where the
op never ran."""

from __future__ import annotations

import dataclasses

import pytest

from oracles.checks.compiled import check_compiled
from oracles.checks.programs import check_programs
from oracles.core.program import Step
from oracles.core.signature import batch_signature
from oracles.modes.compiled import COMPILED
from oracles.repro.script import write_repro
from oracles.triage import faults
from suites.policy import check_examples
from tests.compiled.test_compiler_faults import DYNAMIC_WRITE_BACK, TWO_NARROWS, WIDER, _spec
from tests.compiled.test_programs import (
    CORRECT_CASE,
    NARROWED_ROW,
    OP,
    WHOLE,
    WINDOWS_WRITTEN_AROUND,
    _program,
)
from tests.compiled.test_repro import _explain, _run

EXPORT, AOTI = COMPILED["export"], COMPILED["aoti"]
WRITE_BACK = _spec("double_on_two_narrows", TWO_NARROWS, lambda op, **args: op(**args))
# The batch's row length varies: the view's storage offset is symbolic.
BATCH = batch_signature([TWO_NARROWS, WIDER])
WRITE_THROUGH_UNFOLD = _program(
    OP, Step("unfold", (0,), (1, 2, 3), 1), Step("mul_", (1,)), returns=(0,), through=("unfold",)
)


def test_the_exported_program_agrees_where_inductor_writes_back_at_offset_0() -> None:
    assert check_compiled(WRITE_BACK, TWO_NARROWS, BATCH, EXPORT) == []
    assert check_compiled(WRITE_BACK, TWO_NARROWS, None, EXPORT) == []


def test_a_program_whose_op_is_not_exported_has_no_verdict() -> None:
    skipped = _spec("never_calls", TWO_NARROWS, lambda op, **args: args["x"] * 2)
    [finding] = check_compiled(skipped, TWO_NARROWS, None, EXPORT)
    assert finding.verdict == "harness"
    assert finding.message == (
        "no verdict: conformance_tests.double_.default is not in the graph torch.export traced"
    )


@pytest.mark.skipif(AOTI.requires() is not None, reason=str(AOTI.requires()))
def test_aoti_writes_back_at_offset_0_with_dynamic_shapes(monkeypatch) -> None:
    # The known fault's own evidence matches it under AOTInductor too.
    with monkeypatch.context() as patch:
        patch.setattr(faults, "KNOWN_FAULTS", ())
        found = check_compiled(WRITE_BACK, TWO_NARROWS, BATCH, AOTI)
    if not DYNAMIC_WRITE_BACK.affects():
        assert found == []
        return
    [finding] = found
    assert finding.blocking and finding.verdict == "values"
    assert finding.message.startswith(
        "buffer 'buffer' after the call: 6 of 15 elements differ bit for bit between aoti and eager"
    )
    [finding] = check_compiled(WRITE_BACK, TWO_NARROWS, BATCH, AOTI)
    assert finding.fault == DYNAMIC_WRITE_BACK.name and not finding.blocking
    # Static, it agrees (the triage's witness compiled this program already).
    assert check_compiled(WRITE_BACK, TWO_NARROWS, None, AOTI) == []


def test_a_drawn_program_is_exported_as_the_programs_check_draws_it() -> None:
    """The known faults' programs agree when exported: the write through an
    unfold and the returned windows written around the op."""
    for program, case in (
        (WRITE_THROUGH_UNFOLD, CORRECT_CASE),
        (WINDOWS_WRITTEN_AROUND, NARROWED_ROW),
    ):
        case = dataclasses.replace(case, program=program)
        assert check_programs(WHOLE, case, None, EXPORT) == [], program.source()


def test_a_deployment_mode_judges_as_many_cases_as_its_budget_of_compiles() -> None:
    assert check_examples("compiled", None, "aoti") == 2  # the dev profile's
    assert check_examples("programs", 7, "export") == 7
    assert check_examples("compiled", None, "inductor") is None


def test_a_deployed_script_exports_each_case_as_the_suite_did(tmp_path) -> None:
    cases = [TWO_NARROWS, WIDER]
    script = write_repro(WRITE_BACK, "compiled", cases, 1, True, tmp_path / "repro.py", "export")
    text = script.read_text()
    assert "torch.export.export(" in text and "DYNAMIC = True" in text
    assert "of a batch of 2 whose Cases are each exported on their own, with dynamic" in text
    assert "torch.compile(" not in text.split("def compile_program", 1)[1]
    [result] = _run(script, cwd=tmp_path)
    assert result.returncode == 0, _explain(result)
    assert "OK: the compiled program agrees with eager bit for bit" in result.stdout
