"""The programs check: legal programs drawn around an op, the faults it finds
in them (shrunk to a few Steps), its silence on correct programs, and its
legality filters with the false positives they exist for."""

from __future__ import annotations

import dataclasses
import subprocess
import sys

import pytest
import torch
from hypothesis import settings
from hypothesis import strategies as st

import torch_conformance.oracles.modes.scale_op  # noqa: F401 - registers the op the Spec tests
from tests.zoo_helpers import needs_kernels
from torch_conformance.oracles.checks import CHECKS
from torch_conformance.oracles.checks.programs import _refused, bug_key, check_programs
from torch_conformance.oracles.comparisons.outputs import metadata, output_aliasing
from torch_conformance.oracles.core.buffers import Buffer, Case, View
from torch_conformance.oracles.core.calls import call_op
from torch_conformance.oracles.core.findings import CheckFailure, Finding
from torch_conformance.oracles.core.program import Program, Step
from torch_conformance.oracles.core.specification import Spec
from torch_conformance.oracles.modes.compiled import INDUCTOR, Compiled
from torch_conformance.oracles.modes.eager import EAGER
from torch_conformance.oracles.modes.mode import IN_PROGRAM
from torch_conformance.oracles.repro.script import write_repro
from torch_conformance.oracles.runner import property as properties
from torch_conformance.oracles.runner.property import run_property
from torch_conformance.oracles.strategies.legality import (
    expected_refusal,
    internally_overlapping,
    overlap,
)
from torch_conformance.oracles.strategies.programs import program_cases
from torch_conformance.oracles.strategies.sampling import sample
from torch_conformance.oracles.triage import faults as known_faults
from torch_conformance.oracles.triage import predictions
from torch_conformance.oracles.triage.engine import KnownFault
from torch_conformance.suites.catalog import builtin_specs, fault_modes


@st.composite
def _scale_cases(draw: st.DrawFn, views: tuple = ((), (("select", 0, 1),))) -> Case:
    rows, cols = draw(st.integers(2, 4)), draw(st.integers(2, 4))
    ops = draw(st.sampled_from(views))
    return Case(
        {"b": Buffer((rows, cols), torch.float32)},
        {"x": View("b", ops)},
        draw(st.integers(0, 9)),
    )


# An opaque custom op that mutates its argument: the programs around it are
# where the compiler faults live.
SCALE = Spec("scale_", "conformance_programs::scale_", _scale_cases(), None)
WHOLE = dataclasses.replace(SCALE, cases=_scale_cases(views=((),)))


def _search(monkeypatch, spec: Spec, kinds: tuple[str, ...]) -> list:
    """The failures a programs search of Steps of ``kinds`` finds, shrunk,
    with known-fault triage off (so each fault blocks)."""
    check = dataclasses.replace(CHECKS["programs"], cases=lambda s: program_cases(s, kinds))
    base = settings(max_examples=40, database=None, derandomize=True)
    with monkeypatch.context() as patch, pytest.raises(CheckFailure) as failed:
        patch.setitem(CHECKS, "programs_of_kinds", check)
        patch.setattr(known_faults, "KNOWN_FAULTS", ())
        patch.setattr(properties, "SEARCHES", 1)  # the first bug found is the one asked for
        run_property(spec, "programs_of_kinds", base=base, mode="inductor", shrink_seconds=8)
    return failed.value.failures


def _found(failures: list, verdict: str, kind: str):
    for failure in failures:
        program = failure.cases[failure.index].program
        verdicts = {f.verdict for f in failure.findings if f.blocking}
        if verdict in verdicts and kind in program.kinds():
            return failure, program
    raise AssertionError(f"no {verdict} failure with a {kind} Step in {failures}")


def _explained(spec: Spec, failure, fault: KnownFault) -> None:
    """With triage on, the shrunk failure is the known fault, not a new bug."""
    if not fault.affects():
        pytest.skip(f"{fault.name!r} does not reproduce on torch {torch.__version__}")
    found = check_programs(spec, failure.cases[failure.index], None, INDUCTOR)
    assert not [f for f in found if f.blocking], found
    assert {f.fault for f in found if f.verdict == "known compiler fault"} == {fault.name}


def test_finds_the_clone_alias_fault(monkeypatch) -> None:
    failure, program = _found(
        _search(monkeypatch, WHOLE, ("clone", "select", "narrow")), "aliasing", "clone"
    )
    assert len(program) <= 5
    _explained(WHOLE, failure, known_faults.FAULTS["mutated_input_alias"])


def test_finds_the_dynamic_write_back_fault(monkeypatch) -> None:
    # The Case is the whole buffer: the program makes the view the second op writes.
    failure, program = _found(_search(monkeypatch, WHOLE, ("select", "scale_")), "values", "scale_")
    assert program.dynamic and len(program) <= 5
    _explained(WHOLE, failure, known_faults.FAULTS["dynamic_write_back"])


def test_finds_the_custom_op_flip_add_divergence(monkeypatch) -> None:
    fault = known_faults.FAULTS["mirrored_read_after_write"]
    if not fault.affects():
        pytest.skip(f"{fault.name!r} does not reproduce on torch {torch.__version__}")
    failure, program = _found(_search(monkeypatch, WHOLE, ("flip", "add_")), "values", "flip")
    assert "add_" in program.kinds() and len(program) <= 5
    assert "distinct bug values/inductor/" in str(failure.findings[-1])
    _explained(WHOLE, failure, fault)


def _program(
    *steps: Step, returns: tuple[int, ...], dynamic: bool = False, through: tuple[str, ...] = ()
) -> Program:
    """A program around the op on ``x``; ``through``: the views it writes through."""
    return Program(
        ("x",), tuple(steps), returns, dynamic=dynamic, written_through=frozenset(through)
    )


OP = Step("op")


def judged(
    program: Program,
    case: Case,
    monkeypatch,
    fault: KnownFault,
    mode: Compiled = INDUCTOR,
    spec: Spec = WHOLE,
) -> list[Finding]:
    """Blocking without triage; with it, the known fault (where it affects
    this release): its Findings (none where it does not)."""
    case = dataclasses.replace(case, program=program)
    with monkeypatch.context() as patch:
        patch.setattr(known_faults, "KNOWN_FAULTS", ())
        blocking = [f for f in check_programs(spec, case, None, mode) if f.blocking]
    if not fault.affects():
        return []
    assert blocking, program.source()
    found = check_programs(spec, case, None, mode)
    assert not [f for f in found if f.blocking], found
    assert {f.fault for f in found if f.verdict == "known compiler fault"} == {fault.name}
    return found


def test_a_write_through_unfold_that_leaves_elements_uncovered(monkeypatch) -> None:
    # one window of 2 columns of 4: columns 2 and 3 are not covered
    unfold = Step("unfold", (0,), (1, 2, 3), 1)
    program = _program(OP, unfold, Step("mul_", (1,)), returns=(0,), through=("unfold",))
    judged(program, CORRECT_CASE, monkeypatch, known_faults.FAULTS["unfold_write"])


def test_a_layout_lost_by_index_copy_(monkeypatch) -> None:
    transposed = Case(
        {"b": Buffer((5, 4), torch.float32)}, {"x": View("b", (("permute", (1, 0)),))}
    )
    program = _program(
        OP,
        Step("index_copy_", (0,), (0, (1,), (0,))),
        Step("double", (0,), (), 1),
        returns=(1,),
    )
    judged(program, transposed, monkeypatch, known_faults.FAULTS["index_copy_layout"])


def test_a_layout_lost_by_index_copy_seen_through_an_op_inductor_compiles(monkeypatch) -> None:
    """``x.index_copy_(...)``, then the pure-PyTorch mrope op on ``x``
    permuted: its result takes the contiguous layout of functionalization's
    ``index_copy``, as found by ``pytest -k rope``."""
    where = next(s for s in builtin_specs() if s.name == "apply_interleaved_rope_where")
    permuted = Case(
        {"b": Buffer((3, 8, 11), torch.float32)},
        {"x": View("b", (("permute", (0, 2, 1)),)), "mrope_section": [1, 1, 2]},
    )
    program = _program(
        Step("index_copy_", (0,), (0, (1,), (0,))), Step("op", (), (), 1), returns=(1,)
    )
    with where.installed():
        judged(program, permuted, monkeypatch, known_faults.FAULTS["index_copy_layout"], spec=where)


def test_a_copy_taken_before_a_catalog_op_mutates_its_source(monkeypatch) -> None:
    """``weight.copy_(input[0])``, then fused_add_rms_norm writes ``input``."""
    norm = next(s for s in builtin_specs() if s.name == "fused_add_rms_norm")
    case = Case(
        {"a": Buffer((2, 8), torch.float32), "r": Buffer((2, 8), torch.float32)}
        | {"w": Buffer((8,), torch.float32)},
        {"input": View("a"), "residual": View("r"), "weight": View("w"), "epsilon": 1e-6},
        1,
    )
    steps = (Step("select", (0,), (0, 0), 1), Step("copy_", (2, 3)), OP)
    case = dataclasses.replace(
        case, program=Program(("input", "residual", "weight"), steps, (0, 1, 2))
    )
    with norm.installed(), monkeypatch.context() as patch:
        patch.setattr(known_faults, "KNOWN_FAULTS", ())
        assert [f for f in check_programs(norm, case, None, INDUCTOR) if f.blocking]
    if not known_faults.FAULTS["copy_before_mutation"].affects():
        return
    with norm.installed():
        found = check_programs(norm, case, None, INDUCTOR)
    assert not [f for f in found if f.blocking], found
    assert {f.fault for f in found} == {known_faults.FAULTS["copy_before_mutation"].name}


# ``v2 = torch.cat([input, input], 1); input.fill_(-0.0); v3 = v2.clone();
# v3.add_(v2); v4 = v3.narrow(0, 2, 1); scale_(v2)``, as Hypothesis drew it.
CLONE_READ = Program(
    ("input",),
    (
        Step("op", (), (), 1),
        Step("cat", (0, 0), (1,), 1),
        Step("fill_", (0,), (-0.0,)),
        Step("clone", (2,), (), 1),
        Step("add_", (3, 2)),
        Step("narrow", (3,), (0, 2, 1), 1),
        Step("scale_", (2,)),
    ),
    (1, 4, 2),
    intermediate=frozenset({1}),
    dynamic=True,
)
CLONE_READ_CASE = Case(
    {"input": Buffer((3, 8, 2), torch.float32)}, {"input": View("input")}, 45334,
    program=CLONE_READ,
)  # fmt: skip


@needs_kernels
def test_a_clone_read_before_an_opaque_write_is_the_known_fault(monkeypatch) -> None:
    """Inductor reads ``v2`` for the clone and the add after ``scale_``
    doubled it: eager's answer for the program with ``scale_`` moved up."""
    silu = next(s for s in builtin_specs() if s.name == "silu_and_mul_functional")
    fault = known_faults.FAULTS["clone_read_after_mutation"]
    with silu.installed(), monkeypatch.context() as patch:
        patch.setattr(known_faults, "KNOWN_FAULTS", ())
        blocking = [f for f in check_programs(silu, CLONE_READ_CASE, None, INDUCTOR) if f.blocking]
    if not fault.affects():
        return
    assert [f.verdict for f in blocking] == ["values"], blocking
    with silu.installed():
        found = check_programs(silu, CLONE_READ_CASE, None, INDUCTOR)
    assert not [f for f in found if f.blocking], found
    assert {f.fault for f in found if f.verdict == "known compiler fault"} == {fault.name}


@needs_kernels
def test_an_injected_fault_in_the_clone_read_shape_stays_blocking() -> None:
    """An injected fault that adds ``v2`` twice to its clone: three times
    ``v2`` (or six), which no position of ``scale_`` gives."""
    silu = next(s for s in builtin_specs() if s.name == "silu_and_mul_functional")
    weighted = fault_modes()["inductor_weighted_add"]
    with silu.installed():
        found = check_programs(silu, CLONE_READ_CASE, None, weighted)
    assert [f for f in found if f.blocking], found
    assert known_faults.FAULTS["clone_read_after_mutation"].name not in {f.fault for f in found}


def test_a_view_of_a_cat_of_permuted_views(monkeypatch) -> None:
    narrow = Case(
        {"b": Buffer((3, 5, 4), torch.float32)},
        {"x": View("b", (("narrow", 0, 0, 1), ("narrow", 1, 0, 2), ("narrow", 2, 0, 1)))},
    )
    program = _program(
        OP,
        Step("permute", (0,), ((1, 0, 2),), 1),
        Step("cat", (1, 1), (1,), 1),
        Step("view", (2,), ((-1,),), 1),
        returns=(0, 3),
    )
    judged(program, narrow, monkeypatch, known_faults.FAULTS["cat_view"])


def test_a_cat_of_one_channels_last_tensor_with_itself(monkeypatch) -> None:
    """Inductor's decomposition of ``cat([x, x])`` lays it out contiguously,
    as ``benchmarks.seeds`` found around the rope op; a cat of two values is
    not that path."""
    channels_last = Case(
        {"b": Buffer((2, 2, 2, 3), torch.float32)}, {"x": View("b", (("permute", (0, 3, 1, 2)),))}
    )
    program = _program(OP, Step("cat", (0, 0), (1,), 1), returns=(1,))
    fault = known_faults.FAULTS["cat_repeated_input"]
    judged(program, channels_last, monkeypatch, fault)
    two = _program(OP, Step("clone", (0,), (), 1), Step("cat", (0, 1), (1,), 1), returns=(2,))
    predict = predictions.PREDICTORS[fault.predicts]
    assert not predict(WHOLE, dataclasses.replace(channels_last, program=two))


def test_a_double_unfold_of_a_view_with_dynamic_sizes(monkeypatch) -> None:
    narrowed = Case({"b": Buffer((5, 8), torch.float32)}, {"x": View("b", (("narrow", 0, 0, 2),))})
    program = _program(
        OP,
        Step("reshape", (0,), ((-1,),), 1),
        Step("unfold", (1,), (0, 6, 2), 1),
        Step("unfold", (2,), (1, 4, 1), 1),
        returns=(0, 3),
        dynamic=True,
    )
    judged(program, narrowed, monkeypatch, known_faults.FAULTS["dynamic_double_unfold"])


@torch.library.custom_op("conformance_programs::copied", mutates_args=())
def _copied(x: torch.Tensor) -> torch.Tensor:
    return x.clone()


@_copied.register_fake
def _(x: torch.Tensor) -> torch.Tensor:
    return torch.empty_like(x)


# An op that runs on float8 (most of eager's arithmetic refuses it), on a row.
FLOAT8_ROW = Case({"b": Buffer((40,), torch.float8_e4m3fn)}, {"x": View("b")})
COPIED = Spec("copied", "conformance_programs::copied", st.just(FLOAT8_ROW), None)
# Windows of 13 every 16 elements, copied onto themselves after the op.
WINDOWS_COPIED = _program(
    OP,
    Step("unfold", (0,), (0, 13, 16), 1),
    Step("copy_", (1, 1)),
    returns=(0,),
    through=("unfold",),
)


def test_a_float8_write_through_unfold_that_g_plus_plus_cannot_compile(
    monkeypatch, two_threads
) -> None:
    fault = known_faults.FAULTS["float8_atomic_add"]
    judged(WINDOWS_COPIED, FLOAT8_ROW, monkeypatch, fault, spec=COPIED)
    [predicted] = predictions.PREDICTORS[fault.predicts](
        COPIED, dataclasses.replace(FLOAT8_ROW, program=WINDOWS_COPIED)
    )
    assert predicted.error is not None
    # Its evidence is g++'s complaint, raised where Inductor runs g++, for
    # the written value's type: not another type's, nor another error's.
    assert not predicted.error(
        RuntimeError("fetch_value(volatile T*) [with T = c10::Float8_e4m3fn]")
    )
    bfloat16 = dataclasses.replace(FLOAT8_ROW, buffers={"b": Buffer((40,), torch.bfloat16)})
    assert not predictions.PREDICTORS[fault.predicts](
        COPIED, dataclasses.replace(bfloat16, program=WINDOWS_COPIED)
    )
    torch.set_num_threads(1)
    assert not predictions.PREDICTORS[fault.predicts](
        COPIED, dataclasses.replace(FLOAT8_ROW, program=WINDOWS_COPIED)
    )


# The op's float8 result, read, then its element 1 written onto its element 0:
# the write cannot take the result's place.
RESULT_WRITTEN = _program(
    Step("op", (), (), 1),
    Step("index_select", (1,), (0, (1, 3)), 1),
    Step("setitem", (1,), (0, 1)),
    returns=(1, 2),
)


def test_a_write_into_part_of_a_float8_intermediate(monkeypatch) -> None:
    fault = known_faults.FAULTS["float8_masked_write"]
    for finding in judged(RESULT_WRITTEN, FLOAT8_ROW, monkeypatch, fault, spec=COPIED):
        assert "the compile fails with its predicted error" in finding.message
    float32 = dataclasses.replace(FLOAT8_ROW, buffers={"b": Buffer((40,), torch.float32)})
    assert not predictions.PREDICTORS[fault.predicts](
        COPIED, dataclasses.replace(float32, program=RESULT_WRITTEN)
    )


# A narrowed row, its windows returned after writes around the op called on
# them, under dynamic shapes.
NARROWED_ROW = Case({"b": Buffer((18,), torch.float32)}, {"x": View("b", (("narrow", 0, 0, 16),))})
WINDOWS_WRITTEN_AROUND = _program(
    Step("unfold", (0,), (0, 3, 4), 1),
    Step("mul_", (0,)),
    Step("op_on", (1,), ("x",)),
    Step("mul_", (0,)),
    returns=(1,),
    dynamic=True,
)


def test_a_returned_view_written_around_an_opaque_op(monkeypatch) -> None:
    fault = known_faults.FAULTS["dynamic_view_output"]
    judged(WINDOWS_WRITTEN_AROUND, NARROWED_ROW, monkeypatch, fault)


def test_a_write_after_a_clone_of_the_mutated_input_shows_in_the_clone(monkeypatch) -> None:
    # The clone comes back as the input itself, so the write after it shows
    # in its values as well as in its aliasing: both are the alias fault's.
    program = _program(OP, Step("clone", (0,), (), 1), Step("mul_", (0,)), returns=(1,))
    judged(program, CORRECT_CASE, monkeypatch, known_faults.FAULTS["mutated_input_alias"])


# A row of a buffer with a leading dimension of 1, permuted: read, then
# mutated by the op, under dynamic shapes.
PERMUTED_ROW = Case(
    {"b": Buffer((1, 8, 2), torch.float32)}, {"x": View("b", (("permute", (0, 2, 1)),))}
)
READ_BEFORE_THE_OP = _program(
    Step("double", (0,), (), 1),
    OP,
    Step("reshape", (1,), ((-1,),), 1),
    returns=(2,),
    dynamic=True,
)


def test_a_read_then_a_mutation_of_a_permuted_view_with_a_dimension_of_1(monkeypatch) -> None:
    fault = known_faults.FAULTS["auto_functionalized_decomposition"]
    judged(READ_BEFORE_THE_OP, PERMUTED_ROW, monkeypatch, fault)


# Correct programs around a mutating op: reads, copies and writes that
# compile right on every release.
CORRECT = {
    "read after the op": _program(OP, Step("flip", (0,), ((0,),), 1), returns=(0, 1)),
    "write before the op": _program(
        Step("narrow", (0,), (0, 0, 1), 1), Step("mul_", (1,)), OP, returns=(0,)
    ),
    "transposed copy before the op": _program(
        Step("transpose", (0,), (0, 1), 1), Step("clone", (1,), (), 1), OP, returns=(0, 2)
    ),
    "cat": _program(OP, Step("cat", (0, 0), (0,), 1), returns=(1,)),
    "index_select": _program(OP, Step("index_select", (0,), (0, (1, 0)), 1), returns=(0, 1)),
    "roll, dynamic": _program(OP, Step("roll", (0,), (1, 1), 1), returns=(1,), dynamic=True),
    "second op on a copy": _program(
        OP, Step("double", (0,), (), 1), Step("scale_", (1,)), returns=(0, 1)
    ),
}
CORRECT_CASE = Case({"b": Buffer((3, 4), torch.float32)}, {"x": View("b")}, 1)


@pytest.mark.parametrize("name", CORRECT)
def test_silent_on_correct_programs(name: str) -> None:
    case = dataclasses.replace(CORRECT_CASE, program=CORRECT[name])
    assert check_programs(WHOLE, case, None, INDUCTOR) == []


def _rms_norm_program(*steps: Step, returns: tuple[int, ...]) -> Program:
    return Program(("input", "weight"), (Step("op", (), (), 1), *steps), returns)


# Around a catalog op that returns a fresh tensor (value 2): updates of what it
# returned, reads of its inputs, and its input updated after it.
CORRECT_AROUND_RMS_NORM = {
    "mirrored update of the output": _rms_norm_program(
        Step("flip", (2,), ((0,),), 1), Step("add_", (2, 3)), returns=(2,)
    ),
    "input doubled after the op": _rms_norm_program(
        Step("scale_", (0,)), Step("roll", (2,), (1, 0), 1), returns=(2, 3)
    ),
}


@pytest.mark.parametrize("name", CORRECT_AROUND_RMS_NORM)
def test_silent_on_correct_programs_around_a_catalog_op(name: str) -> None:
    rms = next(s for s in builtin_specs() if s.name == "rms_norm")
    with rms.installed():
        for case in sample(rms.cases, 3):
            case = dataclasses.replace(case, program=CORRECT_AROUND_RMS_NORM[name])
            assert check_programs(rms, case, None, INDUCTOR) == [], case.describe()


def test_drawn_programs_are_legal_in_eager() -> None:
    """Eager runs every drawn program: the filters leave nothing it refuses."""
    specs = [SCALE, *(s for s in builtin_specs() if s.name in ("rms_norm", "rotary_embedding"))]
    for spec in specs:
        with spec.installed():
            for case in sample(program_cases(spec), 60):
                ran = EAGER.run(spec, case, IN_PROGRAM)
                assert ran.error is None, (case.program.source(), ran.error)


def test_no_drawn_program_overwrites_every_output_of_the_op() -> None:
    """A fill_ of one output and a copy_ into the other leave nothing the op
    made to read: a compiler rightly drops the op, and the run gives no
    verdict. So every drawn program's returns change where the op's outputs
    do (here shifted by one)."""
    spec = next(s for s in builtin_specs() if s.name == "rotary_embedding_functional")
    with spec.installed():
        real = spec.resolve()
        shifted = dataclasses.replace(
            spec, op=lambda **args: tuple(out + 1 for out in call_op(real, **args))
        )
        for case in sample(program_cases(spec, ("fill_", "copy_", "narrow")), 40):
            want = EAGER.run(spec, case, IN_PROGRAM).outputs
            got = EAGER.run(shifted, case, IN_PROGRAM).outputs
            assert want is not None and got is not None, case.program.source()
            assert not all(map(torch.equal, want, got)), case.program.source()


def _raises(x: torch.Tensor) -> torch.Tensor:
    raise ValueError(f"no kernel for {x.shape[0]} rows")


def test_an_op_that_raises_while_its_program_is_drawn_is_a_crash_finding() -> None:
    # Drawing a program runs the op to learn what the steps after it take:
    # an op that raises there is a crash Finding, not an error of the draw.
    # It raises on every Case, so no program compiles.
    spec = Spec("raises", _raises, _scale_cases(views=((),)), None)
    with pytest.raises(CheckFailure) as failed:
        run_property(
            spec, "programs", settings(max_examples=10, database=None), "inductor", shrink_seconds=5
        )
    report = failed.value.report()
    assert "[crash] " in report and "raised in eager mode" in report
    assert "ValueError: no kernel for 2 rows" in report, report  # shrunk to 2 rows


def test_internal_overlap() -> None:
    positions = torch.arange(8)
    assert internally_overlapping(positions.expand(2, 8))
    assert internally_overlapping(positions.unfold(0, 3, 2))  # windows overlap
    assert not internally_overlapping(positions.unfold(0, 2, 3))  # gapped windows
    assert not internally_overlapping(positions.view(2, 4).t())


def test_partial_overlap_on_storage_positions() -> None:
    grid = torch.arange(6).view(2, 3)
    left, right = grid[:, :2], grid[:, 1:]
    assert overlap(left, right, True) == "partial"
    assert overlap(grid[0], grid[1], True) == "none"
    assert overlap(left, grid[:, :2], True) == "same"
    assert overlap(left, right, False) == "none"  # other storages never meet
    row = torch.arange(3).view(1, 3)
    # the same positions, strides apart only in a size-1 dimension: eager refuses
    # an in-place update between them, so the filter does too
    assert overlap(row, row.as_strided((1, 3), (1, 1)), True) == "partial"
    with pytest.raises(RuntimeError, match="single memory location"):
        values = torch.zeros(3)
        values.view(1, 3).add_(values.as_strided((1, 3), (1, 1)))


def test_partial_overlap_is_what_eager_does_not_check() -> None:
    """The false positive the filter exists for: eager gives up checking a
    copy_ between strided views that partly overlap and runs it, with a
    result that depends on its loop order."""
    buffer = torch.arange(6.0)
    grid = buffer.view(2, 3)
    grid[:, :2].copy_(grid[:, 1:])  # no error: eager's overlap check is "too hard" here
    assert overlap(torch.arange(6).view(2, 3)[:, :2], torch.arange(6).view(2, 3)[:, 1:], True)


def test_writes_never_go_through_overlapping_views() -> None:
    case = dataclasses.replace(CORRECT_CASE, program=None)
    kinds = ("expand", "unfold", "add_", "mul_", "copy_", "fill_", "neg_")
    for drawn in sample(program_cases(dataclasses.replace(WHOLE, cases=st.just(case)), kinds), 80):
        ran = EAGER.run(WHOLE, drawn, IN_PROGRAM)
        assert ran.error is None, drawn.program.source()


def test_expected_refusals() -> None:
    refusal = RuntimeError("the tensor being mutated has internal overlap")
    assert expected_refusal(frozenset({"unfold"}), refusal) == "unfold"
    assert expected_refusal(frozenset(), refusal) is None  # no write through unfold: a bug
    assert expected_refusal(frozenset({"as_strided"}), RuntimeError("as_strided_scatter")) == (
        "as_strided"
    )
    program = _program(OP, returns=(0,))
    failed = Finding("compiled", "failed", error=refusal)
    assert _refused(program, INDUCTOR, failed) is None
    through = dataclasses.replace(program, written_through=frozenset({"unfold"}))
    note = _refused(through, INDUCTOR, failed)
    assert note.verdict == "expected refusal" and not note.blocking


def test_layout_of_intermediate_views_does_not_block() -> None:
    real, other = torch.zeros(2, 3), torch.zeros(3, 2).t()
    assert [f.blocking for f in metadata("out[0]", real, other, "inductor", "eager")] == [True]
    found = metadata("out[0]", real, other, "inductor", "eager", layout_significant=False)
    assert [(f.verdict, f.blocking) for f in found] == [("intermediate strides", False)]


def test_output_aliasing_is_reported_without_blocking() -> None:
    a = torch.zeros(4)
    found = output_aliasing((a, a[1:]), (a, torch.zeros(3)), "inductor")
    assert [(f.verdict, f.blocking) for f in found] == [("output aliasing", False)]
    assert "out[0] and out[1] share storage in eager, but not in inductor" in found[0].message
    assert output_aliasing((a, a[1:]), (a, a[:3]), "inductor") == []


def test_bug_key_tells_symptom_mode_shapes_and_kinds() -> None:
    program = _program(OP, Step("flip", (0,), ((0,),), 1), Step("add_", (0, 1)), returns=(0,))
    findings = [Finding("values", "x"), Finding("output aliasing", "y", blocking=False)]
    assert bug_key(findings, INDUCTOR, program) == "values/inductor/static/add_,flip,op"


def test_repro_script_of_a_drawn_program(tmp_path) -> None:
    """The program's repro compiles exactly its text and fails while the bug is there."""
    flip_add = _program(OP, Step("flip", (0,), ((0,),), 1), Step("add_", (0, 1)), returns=(1,))
    case = dataclasses.replace(CORRECT_CASE, program=flip_add)
    script = write_repro(WHOLE, "programs", [case], 0, False, tmp_path / "repro.py")
    text = script.read_text()
    assert text.startswith('# Reproduces the "programs (inductor)" check of spec')
    assert "v1 = x.flip((0,))" in text and "x.add_(v1)" in text
    run = subprocess.run([sys.executable, str(script)], capture_output=True, text=True)
    reproduces = known_faults.FAULTS["mirrored_read_after_write"].affects()
    assert run.returncode == int(reproduces), run.stdout[-2000:] + run.stderr[-2000:]
    assert "[compiled]" not in run.stdout  # it compiled: the values are what differ
    if reproduces:
        assert "[values] out[0]" in run.stdout, run.stdout[-2000:]


def test_the_op_step_sees_what_the_op_returns() -> None:
    """A drawn program returns the op's outputs, or what it writes."""
    rms = next(s for s in builtin_specs() if s.name == "rms_norm")
    with rms.installed():
        for case in sample(program_cases(rms), 10):
            program = case.program
            eager = EAGER.run(rms, case)
            op_step = next(s for s in program.steps if s.kind == "op")
            assert op_step.outputs == len(eager.outputs)
    for case in sample(program_cases(WHOLE), 10):
        assert case.program.returns[0] == 0  # scale_ returns nothing: x is returned


@needs_kernels
def test_the_script_compiles_the_graph_inputs_in_the_suites_order(tmp_path) -> None:
    """``residual.copy_(input); scale_(input); fused_add_rms_norm(input, residual)``:
    Inductor's code (on 2.13, wrong: the residual is written back from the
    input's new values) depends on the order of the graph's inputs, which
    Dynamo takes from the order it first meets them; the program meets the
    residual first, the suite its buffers in order. The script must compile
    what the suite compiled and reach its verdict."""
    norm = next(s for s in builtin_specs() if s.name == "fused_add_rms_norm")
    steps = (Step("copy_", (1, 0)), Step("scale_", (0,)), OP)
    case = Case(
        {"a": Buffer((3, 64), torch.float32), "r": Buffer((3, 64), torch.float32)}
        | {"w": Buffer((64,), torch.float32)},
        {"input": View("a"), "residual": View("r"), "weight": View("w"), "epsilon": 1e-6},
        program=Program(("input", "residual", "weight"), steps, (0,)),
    )
    with norm.installed():
        suite = {f.verdict for f in check_programs(norm, case, None, INDUCTOR) if f.blocking}
        script = write_repro(norm, "programs", [case], 0, False, tmp_path / "order.py")
    run = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=600)
    assert run.returncode == int(bool(suite)), run.stdout + run.stderr[-2000:]
    for verdict in suite:
        assert f"[{verdict}] buffer 'r' after the call" in run.stdout


def _to_float8(x: torch.Tensor) -> torch.Tensor:
    return x.to(torch.float8_e4m3fn)


def test_no_step_is_drawn_on_a_dtype_eager_torch_refuses_it_for() -> None:
    """Eager torch has no ``mul_``, ``neg_`` or last-dimension ``flip`` of a
    float8 tensor: a program drawing them would blame the op for torch's refusal."""
    case = Case({"x": Buffer((4, 6), torch.float32)}, {"x": View("x")})
    spec = Spec("to_float8", _to_float8, st.just(case), None)
    kinds = set()
    for drawn in sample(program_cases(spec), 150):
        run = EAGER.run(spec, drawn, IN_PROGRAM)
        assert run.error is None, (drawn.program, run.error)
        kinds |= {step.kind for step in drawn.program.steps}
    assert {"clone", "copy_", "fill_", "setitem"} & kinds  # float8 still gets Steps
