"""The deployment Modes: the program exported with torch.export and run as
exported (``export`` non-strict, ``export_strict`` traced by Dynamo), and
compiled by AOTInductor, packaged, loaded and run (``aoti``), judged as the
compiled check judges torch.compile: silent where they agree with eager, a
Finding where they do not, and no verdict where the op never ran."""

from __future__ import annotations

import dataclasses

import pytest
import torch

from tests.compiled.test_compiler_faults import DYNAMIC_WRITE_BACK, TWO_NARROWS, WIDER, _spec
from tests.compiled.test_programs import (
    CORRECT_CASE,
    NARROWED_ROW,
    OP,
    WHOLE,
    WINDOWS_WRITTEN_AROUND,
    _program,
    judged,
)
from tests.compiled.test_repro import _explain, _run
from tests.zoo_helpers import needs_kernels, zoo_spec
from torch_conformance.oracles.checks.compiled import check_compiled
from torch_conformance.oracles.checks.programs import check_programs
from torch_conformance.oracles.comparisons.outputs import reaches_past
from torch_conformance.oracles.core.buffers import Buffer, Case, View
from torch_conformance.oracles.core.program import Program, Step
from torch_conformance.oracles.core.signature import batch_signature
from torch_conformance.oracles.core.verdicts import VALUES
from torch_conformance.oracles.modes import deployment
from torch_conformance.oracles.modes.cache import use_cache_root
from torch_conformance.oracles.modes.compiled import COMPILED
from torch_conformance.oracles.modes.eager import EAGER
from torch_conformance.oracles.modes.mode import IN_PROGRAM
from torch_conformance.oracles.repro.script import write_repro
from torch_conformance.oracles.triage import faults
from torch_conformance.oracles.triage.engine import Situation
from torch_conformance.oracles.triage.predictions import PREDICTORS
from torch_conformance.suites.catalog import fault_modes
from torch_conformance.suites.policy import check_examples

EXPORT, EXPORT_STRICT, AOTI = COMPILED["export"], COMPILED["export_strict"], COMPILED["aoti"]
EXPORTS = pytest.mark.parametrize("mode", [EXPORT, EXPORT_STRICT], ids=lambda m: m.name)
WRITE_BACK = _spec("double_on_two_narrows", TWO_NARROWS, lambda op, **args: op(**args))
# The batch's row length varies: the view's storage offset is symbolic.
BATCH = batch_signature([TWO_NARROWS, WIDER])
WRITE_THROUGH_UNFOLD = _program(
    OP, Step("unfold", (0,), (1, 2, 3), 1), Step("mul_", (1,)), returns=(0,), through=("unfold",)
)


@EXPORTS
def test_the_exported_program_agrees_where_inductor_writes_back_at_offset_0(
    mode, monkeypatch, tmp_path
) -> None:
    use_cache_root(tmp_path)  # nothing exported before: every Case exports here
    strict = []
    export = torch.export.export

    def recording_export(*args, **kwargs):
        strict.append(kwargs["strict"])
        return export(*args, **kwargs)

    monkeypatch.setattr(torch.export, "export", recording_export)
    assert check_compiled(WRITE_BACK, TWO_NARROWS, BATCH, mode) == []
    assert check_compiled(WRITE_BACK, TWO_NARROWS, None, mode) == []
    assert strict and set(strict) == {mode.deploy.strict}


@EXPORTS
def test_a_program_whose_op_is_not_exported_has_no_verdict(mode) -> None:
    skipped = _spec("never_calls", TWO_NARROWS, lambda op, **args: args["x"] * 2)
    [finding] = check_compiled(skipped, TWO_NARROWS, None, mode)
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


@needs_kernels
def test_aoti_trusts_a_wrong_fake_where_export_runs_the_kernel() -> None:
    """The zoo's rope whose fake claims fresh contiguous outputs where its
    kernel returns its fused-QKV inputs: the exported program runs the
    kernel, as eager does, and agrees; AOTInductor lays the program out by
    the fake and reads other elements."""
    spec = zoo_spec("rope_returns_inputs_gemma4_fake")
    with spec.installed():
        exported = check_compiled(spec, spec.examples[0], None, EXPORT)
        compiled = check_compiled(spec, spec.examples[0], None, AOTI)
    assert exported == []
    assert [f.verdict for f in compiled] == [VALUES], compiled
    assert "out[0]" in compiled[0].message and "between aoti and eager" in compiled[0].message


def test_a_deployment_mode_judges_as_many_cases_as_its_budget_of_compiles() -> None:
    assert check_examples("compiled", None, "aoti") == 2  # the dev profile's
    assert check_examples("programs", 7, "export") == 7
    assert check_examples("compiled", None, "inductor") is None


@EXPORTS
def test_a_deployed_script_exports_each_case_as_the_suite_did(mode, tmp_path) -> None:
    cases = [TWO_NARROWS, WIDER]
    script = write_repro(WRITE_BACK, "compiled", cases, 1, True, tmp_path / "repro.py", mode.name)
    text = script.read_text()
    assert "torch.export.export(" in text and "DYNAMIC = True" in text
    assert f"STRICT = {mode.deploy.strict}" in text
    assert "of a batch of 2 whose Cases are each exported on their own, with dynamic" in text
    assert "torch.compile(" not in text.split("def compile_program", 1)[1]
    [result] = _run(script, cwd=tmp_path)
    assert result.returncode == 0, _explain(result)
    assert "OK: the compiled program agrees with eager bit for bit" in result.stdout


# The op writes x, then a row of it is doubled in place and returned.
ROW_WRITTEN_TWICE = _program(
    OP, Step("narrow", (0,), (0, 1, 1), 1), Step("mul_", (1,)), returns=(1,)
)
# A strided slice of x, taken before x is written in place, restrided to a
# fixed offset in x's storage.
RESTRIDED_SLICE = _program(
    Step("slice", (0,), (2, 2, 4, 2), 1),
    OP,
    Step("mul_", (0,)),
    Step("as_strided", (1,), ((1, 5, 1), (10, 50, 2), 113), 1),
    returns=(2,),
)
BLOCK = Case({"b": Buffer((7, 5, 10), torch.float32)}, {"x": View("b")}, 1)
TRANSPOSED_BLOCK = Case(
    {"b": Buffer((10, 5, 7), torch.float32)}, {"x": View("b", (("permute", (2, 1, 0)),))}, 1
)
# The same, restrided within the slice's own elements.
RESTRIDED_WITHIN = dataclasses.replace(
    RESTRIDED_SLICE,
    steps=RESTRIDED_SLICE.steps[:-1] + (Step("as_strided", (1,), ((2, 5, 1), (1, 7, 1), 1), 1),),
)


@pytest.mark.skipif(AOTI.requires() is not None, reason=str(AOTI.requires()))
def test_aoti_returns_a_copy_of_a_written_row(monkeypatch) -> None:
    """The row comes back as a fresh copy: an [aliasing] Finding, which
    the fault's prediction (the row of a contiguous copy of x) explains."""
    judged(
        ROW_WRITTEN_TWICE, CORRECT_CASE, monkeypatch, faults.FAULTS["aoti_returned_view_copy"], AOTI
    )
    assert (
        check_programs(
            WHOLE, dataclasses.replace(CORRECT_CASE, program=ROW_WRITTEN_TWICE), None, EXPORT
        )
        == []
    )


@pytest.mark.skipif(AOTI.requires() is not None, reason=str(AOTI.requires()))
@pytest.mark.parametrize("offset", [113, 1], ids=["past", "within"])
def test_aoti_restrides_a_copy_of_a_slice(offset: int, monkeypatch) -> None:
    """Past the end of the copy's storage ([metadata]; where a release
    refuses the program instead, [compiled], its own fault); within it,
    reading other elements than eager ([values]) from a copy laid out as the
    transposed slice is."""
    fault = faults.FAULTS["aoti_as_strided_over_a_copy"]
    block = BLOCK if offset == 113 else TRANSPOSED_BLOCK
    program = RESTRIDED_SLICE if offset == 113 else RESTRIDED_WITHIN
    with monkeypatch.context() as patch:
        patch.setattr(faults, "KNOWN_FAULTS", ())
        found = check_programs(WHOLE, dataclasses.replace(block, program=program), None, AOTI)
    if not fault.affects():
        return
    refusal = faults.FAULTS["aoti_as_strided_refused"]
    if offset == 113 and refusal.affects():
        [refused] = found
        assert refused.verdict == "compiled" and "requires 314 elements but" in refused.message
        judged(program, block, monkeypatch, refusal, AOTI)
        return
    assert {f.verdict for f in found} == ({"metadata"} if offset == 113 else {"aliasing", "values"})
    judged(program, block, monkeypatch, fault, AOTI)


def _predicted(fault: str, case: Case) -> list[Case]:
    made = PREDICTORS[faults.FAULTS[fault].predicts](WHOLE, case)
    assert all(p.case is not None for p in made)
    return [p.case for p in made if p.case is not None]


def test_the_copy_faults_predict_a_copy_laid_out_as_aoti_lays_it_out() -> None:
    """What the two faults' evidence asks of the compiled run: the row made
    from a fresh copy, of x (then narrowed) or of the row itself, with eager's
    values; the slice's restriding over a copy of the slice alone, reaching
    past its 35 elements."""
    case = dataclasses.replace(CORRECT_CASE, program=ROW_WRITTEN_TWICE)
    [want] = EAGER.run(WHOLE, case, IN_PROGRAM).outputs
    layouts = set()
    for predicted in _predicted("aoti_returned_view_copy", case):
        copied = EAGER.run(WHOLE, predicted, IN_PROGRAM)
        [got] = copied.outputs
        assert torch.equal(got, want)
        buffer = copied.buffers_after["b"]
        assert got.untyped_storage().data_ptr() != buffer.untyped_storage().data_ptr()
        layouts.add((got.stride(), got.storage_offset(), got.untyped_storage().nbytes() // 4))
    assert layouts == {((4, 1), 4, 12), ((4, 1), 0, 4)}
    # Nothing to copy where no view of an input is returned.
    fresh = _program(OP, Step("double", (0,), (), 1), returns=(1,))
    assert _predicted("aoti_returned_view_copy", dataclasses.replace(case, program=fresh)) == []

    case = dataclasses.replace(BLOCK, program=RESTRIDED_SLICE)
    [predicted] = _predicted("aoti_as_strided_over_a_copy", case)
    [got] = EAGER.run(WHOLE, predicted, IN_PROGRAM).outputs
    assert reaches_past(got) and got.untyped_storage().nbytes() == 35 * 4
    assert (got.stride(), got.storage_offset()) == ((10, 50, 2), 113)


def test_the_aoti_faults_apply_to_aoti_alone() -> None:
    case = dataclasses.replace(CORRECT_CASE, program=ROW_WRITTEN_TWICE)
    fault = faults.FAULTS["aoti_returned_view_copy"]
    assert fault.applies(Situation(case, False, True, deploy=deployment.AOTI))
    for deploy in (None, deployment.EXPORT, deployment.EXPORT_STRICT):
        assert not fault.applies(Situation(case, False, True, deploy=deploy))


def test_the_refusal_is_matched_by_the_numbers_it_names() -> None:
    """The refused as_strided's size, strides and offset, and the element
    count of the view it is made of (the slice's 35): another refusal of
    the same words, or another error, is not this fault's."""
    case = dataclasses.replace(BLOCK, program=RESTRIDED_SLICE)
    [predicted] = PREDICTORS[faults.FAULTS["aoti_as_strided_refused"].predicts](WHOLE, case)
    assert predicted.error is not None
    words = "LoweringException: NotImplementedError: as_strided([1, 5, 1], [10, 50, 2], {}) "
    words += "requires 314 elements but buf2 holds only {}. This happens when"
    assert predicted.error(NotImplementedError(words.format(113, 35)))
    assert not predicted.error(NotImplementedError(words.format(113, 36)))
    assert not predicted.error(NotImplementedError(words.format(112, 35)))
    assert not predicted.error(RuntimeError("requires 314 elements"))
    fresh = _program(OP, Step("double", (0,), (), 1), returns=(1,))
    assert (
        PREDICTORS["as_strided past a written input's view refused"](
            WHOLE, dataclasses.replace(case, program=fresh)
        )
        == []
    )


@pytest.mark.skipif(AOTI.requires() is not None, reason=str(AOTI.requires()))
# Within the slice's elements: every release compiles it (2.15 refuses the
# restriding past them, another fault).
@pytest.mark.parametrize(
    ("program", "block"),
    [(ROW_WRITTEN_TWICE, CORRECT_CASE), (RESTRIDED_WITHIN, TRANSPOSED_BLOCK)],
)
def test_a_miscompile_in_the_copy_faults_shape_stays_blocking(
    program: Program, block: Case
) -> None:
    """AOTInductor with an injected fault (its product by 2 multiplies by 3)
    around the copy faults' own programs: the copy is there too, but the
    values are not the predicted copy's, so no copy fault explains them."""
    tripled = dataclasses.replace(
        fault_modes()["inductor_tripled_doubling"],
        name="aoti_tripled_doubling",
        deploy=deployment.AOTI,
    )
    found = check_programs(WHOLE, dataclasses.replace(block, program=program), None, tripled)
    assert "values" in {f.verdict for f in found if f.blocking}, found
    assert not [f for f in found if f.fault], found
