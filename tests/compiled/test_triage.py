"""Known-fault triage demotes a Finding only on evidence specific to its
fault: injected faults in the shapes of programs the known faults live in
(another pass, another wrong answer) stay blocking, and so do wrong fakes.
The known faults' own triggers are still demoted (``test_programs``,
``test_compiler_faults``)."""

from __future__ import annotations

import dataclasses

import pytest
import torch
from hypothesis import strategies as st

from tests.compiled.test_programs import (
    COPIED,
    CORRECT_CASE,
    FLOAT8_ROW,
    NARROWED_ROW,
    OP,
    PERMUTED_ROW,
    READ_BEFORE_THE_OP,
    RESULT_WRITTEN,
    SCALE,
    WHOLE,
    WINDOWS_COPIED,
    WINDOWS_WRITTEN_AROUND,
    _program,
)
from tests.zoo_helpers import needs_kernels
from torch_conformance.families.mrope.faults import SHIFTED_SLICE_SCATTER
from torch_conformance.oracles.checks import programs
from torch_conformance.oracles.checks.programs import check_programs
from torch_conformance.oracles.core.buffers import Buffer, Case, View
from torch_conformance.oracles.core.findings import ConformanceFailure, Finding
from torch_conformance.oracles.core.program import Program, Step
from torch_conformance.oracles.core.specification import Spec
from torch_conformance.oracles.modes.compiled import COMPILED
from torch_conformance.oracles.triage import predictions
from torch_conformance.oracles.triage.faults import FAULTS
from torch_conformance.suites.catalog import builtin_specs
from torch_conformance.suites.compiler_zoo import FAULT_MODES

INJECTED = {mode.name: mode for mode in FAULT_MODES}
TRANSPOSED = Case({"b": Buffer((5, 4), torch.float32)}, {"x": View("b", (("permute", (1, 0)),))})
NARROWED = Case({"b": Buffer((5, 8), torch.float32)}, {"x": View("b", (("narrow", 0, 0, 2),))})
CHANNELS_LAST = Case(
    {"b": Buffer((2, 2, 2, 3), torch.float32)}, {"x": View("b", (("permute", (0, 3, 1, 2)),))}
)

# Each known fault's shape of program, broken another way by an injected fault.
SHAPES = {
    "mutated_input_alias": (
        # A write after the clone: the dropped clone's result shows it too.
        _program(OP, Step("clone", (0,), (), 1), Step("mul_", (0,)), returns=(1,)),
        CORRECT_CASE,
        "inductor_dropped_clone",
    ),
    "mirrored_read_after_write": (
        _program(OP, Step("flip", (0,), ((0,),), 1), Step("add_", (0, 1)), returns=(1,)),
        CORRECT_CASE,
        "inductor_shifted_reverse",
    ),
    "unfold_write": (
        _program(
            OP, Step("unfold", (0,), (1, 2, 3), 1), Step("mul_", (1,)), returns=(0,),
            through=("unfold",),
        ),
        CORRECT_CASE,
        "inductor_tripled_doubling",
    ),
    "index_copy_layout": (
        _program(
            OP, Step("index_copy_", (0,), (0, (1,), (0,))), Step("double", (0,), (), 1),
            returns=(1,),
        ),
        TRANSPOSED,
        "inductor_padded_doubling",
    ),
    "dynamic_double_unfold": (
        _program(
            OP, Step("reshape", (0,), ((-1,),), 1), Step("unfold", (1,), (0, 6, 2), 1),
            Step("unfold", (2,), (1, 4, 1), 1), returns=(0, 3), dynamic=True,
        ),
        NARROWED,
        "inductor_refused_views",
    ),
    "cat_view": (
        _program(
            OP, Step("double", (0,), (), 1), Step("cat", (0, 1), (1,), 1),
            Step("view", (2,), ((-1,),), 1), returns=(0, 3),
        ),
        CORRECT_CASE,
        "inductor_refused_views",
    ),
    "cat_repeated_input": (
        # The cat's layout is the known fault's; its values (tripled) are not.
        _program(
            OP, Step("double", (0,), (), 1), Step("cat", (1, 1), (1,), 1), returns=(2,),
        ),
        CHANNELS_LAST,
        "inductor_tripled_doubling",
    ),
    "auto_functionalized_decomposition": (
        READ_BEFORE_THE_OP, PERMUTED_ROW, "inductor_failed_assertion",
    ),
    "dynamic_view_output": (WINDOWS_WRITTEN_AROUND, NARROWED_ROW, "inductor_tripled_doubling"),
}  # fmt: skip


def _blocking_and_unexplained(found: list[Finding], fault: str) -> None:
    assert [f for f in found if f.blocking], found
    assert FAULTS[fault].name not in {f.fault for f in found}, found


@pytest.mark.parametrize("fault", SHAPES)
def test_an_injected_fault_in_a_known_faults_shape_stays_blocking(fault: str) -> None:
    program, case, mode = SHAPES[fault]
    found = check_programs(WHOLE, dataclasses.replace(case, program=program), None, INJECTED[mode])
    _blocking_and_unexplained(found, fault)


@pytest.mark.parametrize(
    ("program", "fault"),
    [(WINDOWS_COPIED, "float8_atomic_add"), (RESULT_WRITTEN, "float8_masked_write")],
)
def test_an_injected_float8_refusal_stays_blocking(two_threads, program, fault) -> None:
    # The float8 faults' programs, refused by a pass instead.
    case = dataclasses.replace(FLOAT8_ROW, program=program)
    found = check_programs(COPIED, case, None, INJECTED["inductor_refused_float8"])
    _blocking_and_unexplained(found, fault)
    assert "refuses this graph's float8 values" in str(found[0])


@needs_kernels
def test_an_injected_copy_fault_before_a_catalog_op_stays_blocking() -> None:
    """``weight.copy_(input[0])``, then fused_add_rms_norm writes ``input``:
    the shape of the copy-before-a-mutation fault, the copy negated."""
    norm = next(s for s in builtin_specs() if s.name == "fused_add_rms_norm")
    case = Case(
        {"a": Buffer((2, 8), torch.float32), "r": Buffer((2, 8), torch.float32)}
        | {"w": Buffer((8,), torch.float32)},
        {"input": View("a"), "residual": View("r"), "weight": View("w"), "epsilon": 1e-6},
        1,
        program=Program(
            ("input", "residual", "weight"),
            (Step("select", (0,), (0, 0), 1), Step("copy_", (2, 3)), OP),
            (0, 1, 2),
        ),
    )
    with norm.installed():
        found = check_programs(norm, case, None, INJECTED["inductor_negated_copy"])
    _blocking_and_unexplained(found, "copy_before_mutation")


@needs_kernels
def test_seed_004s_injected_miscompile_is_never_demoted_in_a_drawn_program() -> None:
    # A program with every fact the mirrored-read fault needs (a write, a
    # read elsewhere, a write Step) around the old interleave form: the
    # injected slice_scatter fault diverges, and no known fault explains it.
    slices = next(s for s in builtin_specs() if s.name == "apply_interleaved_rope_slices")
    example = slices.examples[0]
    inputs = tuple(name for name, value in example.args.items() if isinstance(value, View))
    steps = (
        Step("neg_", (0,)),
        Step("op", (), (), 1),
        Step("flip", (len(inputs),), ((0,),), 1),
        Step("add_", (len(inputs), len(inputs) + 1)),
    )
    program = Program(inputs, steps, (len(inputs),))
    case = dataclasses.replace(example, program=program)
    found = check_programs(slices, case, None, SHIFTED_SLICE_SCATTER)
    assert any(f.blocking and f.verdict == "values" for f in found), found
    assert not any(f.fault for f in found), found
    assert not any(f.blocking for f in check_programs(slices, case, None, COMPILED["inductor"]))


@torch.library.custom_op("conformance_tests::widened", mutates_args=())
def widened(x: torch.Tensor) -> torch.Tensor:
    return x * 2


@widened.register_fake
def _(x: torch.Tensor) -> torch.Tensor:
    # Wrong: the kernel keeps the input's dtype.
    return torch.empty(x.shape, dtype=torch.float32)


def _bf16_cases() -> st.SearchStrategy[Case]:
    return st.just(Case({"b": Buffer((3, 4), torch.bfloat16)}, {"x": View("b")}, 1))


def test_a_wrong_fake_is_never_demoted_as_a_compiler_fault() -> None:
    # The held-out hole: a fake that only Inductor trusts (aot_eager agrees),
    # in a program holding a write and a mirrored read.
    spec = Spec("widened", "conformance_tests::widened", _bf16_cases(), None)
    program = Program(
        ("x",),
        (
            Step("mul_", (0,)),
            Step("op", (), (), 1),
            Step("flip", (1,), ((0,),), 1),
            Step("add_", (1, 2)),
        ),
        (1,),
    )
    case = dataclasses.replace(CORRECT_CASE, buffers={"b": Buffer((3, 4), torch.bfloat16)})
    case = dataclasses.replace(case, program=program)
    found = check_programs(spec, case, None, COMPILED["inductor_no_size_asserts"])
    assert any(f.blocking for f in found), found
    assert not any(f.fault for f in found), found


# The op's argument is a row of its buffer, at a nonzero storage offset.
SECOND_ROW = Case({"b": Buffer((3, 4), torch.float32)}, {"x": View("b", (("select", 0, 1),))}, 1)
BEFORE_THE_OP = {"neg_": (), "fill_": (-0.0,), "mul_": ()}


@pytest.mark.parametrize("kind", BEFORE_THE_OP)
def test_the_write_back_fault_rebases_the_ops_call_alone(kind: str) -> None:
    """A write to the argument before the op lands where it should; only the
    op reads and writes at offset 0. A prediction that rebased the argument
    for the whole program moved that write too and left the fault blocking."""
    before = Step(kind, (0,), BEFORE_THE_OP[kind])
    program = Program(("x",), (before, OP), (0,), dynamic=True)
    found = check_programs(SCALE, dataclasses.replace(SECOND_ROW, program=program))
    assert found and not any(f.blocking for f in found), found
    assert {f.fault for f in found} == {FAULTS["dynamic_write_back"].name}


def test_a_program_is_never_cut_down_to_one_a_known_fault_explains(monkeypatch) -> None:
    """Deleting Steps of an unexplained program can leave one that a known
    fault explains: the cut-down program must still fail as triage judges it."""
    rebased = predictions.PREDICTORS["write-back at offset 0"]

    def only_the_op_alone(spec: Spec, case: Case) -> list:
        # Explains the fault where the program is the op alone, as a weaker
        # predictor would: the program with a write before it stays unexplained.
        return rebased(spec, case) if len(case.program.steps) == 1 else []

    monkeypatch.setitem(predictions.PREDICTORS, "write-back at offset 0", only_the_op_alone)
    program = Program(("x",), (Step("neg_", (0,)), OP), (0,), dynamic=True)
    case = dataclasses.replace(SECOND_ROW, program=program)
    found = check_programs(SCALE, case)
    assert any(f.blocking for f in found), found
    failure = ConformanceFailure("programs", SCALE.op, case.describe(), found, (case,))
    reported = programs.CHECK.finish(SCALE, COMPILED["inductor"], failure)
    assert failure.cases[0].program == program, failure.cases[0].program
    assert any(f.blocking for f in reported), reported
