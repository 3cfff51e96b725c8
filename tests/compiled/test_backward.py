"""The backward checks: eager gradients against the float64 reference's
(``backward``), and the program compiled and differentiated against eager
(``compiled_backward``); silent on a differentiable op, a Finding on each of
the backward zoo's autograd formulas, and no verdict where nothing compiled
a backward."""

from __future__ import annotations

import dataclasses

import pytest
import torch
import torch.nn.functional as F
from hypothesis import settings
from torch._inductor.compile_fx import compile_fx_inner

from tests.compiled.test_registry import CHECKOUT
from tests.compiled.test_repro import _explain, _run
from torch_conformance.families.activation import reference as silu_reference
from torch_conformance.families.activation import zoo as activation_zoo
from torch_conformance.families.activation.specs import (
    SILU_AND_MUL_FUNCTIONAL as SILU_FUNCTIONAL_ROWS,
)
from torch_conformance.families.norm import zoo as norm_zoo
from torch_conformance.families.rope import backward_zoo
from torch_conformance.oracles.checks import CHECKS
from torch_conformance.oracles.checks.backward import check_backward
from torch_conformance.oracles.checks.compiled_backward import check_compiled_backward
from torch_conformance.oracles.checks.programs import BACKWARD, bug_key, check_programs
from torch_conformance.oracles.comparisons.expected import gradient_expectation
from torch_conformance.oracles.comparisons.values import within_ulps
from torch_conformance.oracles.core.buffers import Buffer, Case, View
from torch_conformance.oracles.core.expectation import Expected
from torch_conformance.oracles.core.findings import CheckFailure, ConformanceFailure, Finding
from torch_conformance.oracles.core.gradients import Backward, tangent_for
from torch_conformance.oracles.core.program import Program, Step
from torch_conformance.oracles.core.specification import SpecError
from torch_conformance.oracles.core.verdicts import (
    AUTOGRAD,
    FAKE,
    HARNESS,
    INTERMEDIATE_STRIDES,
    KNOWN_COMPILER_FAULT,
    STAGE,
    VALUES,
)
from torch_conformance.oracles.core.verdicts import COMPILED as COMPILED_VERDICT
from torch_conformance.oracles.judging.gradient_runs import compiled_backward, eager_backward
from torch_conformance.oracles.modes import compiled_program
from torch_conformance.oracles.modes.compiled import COMPILED, INDUCTOR
from torch_conformance.oracles.modes.programs import around
from torch_conformance.oracles.repro.script import write_repro
from torch_conformance.oracles.runner.loading import validate
from torch_conformance.oracles.runner.property import run_property
from torch_conformance.oracles.strategies.hidden_rows import contiguous_model, rows_case
from torch_conformance.oracles.strategies.programs import program_cases
from torch_conformance.oracles.strategies.sampling import sample
from torch_conformance.oracles.strategies.tangents import tangent_cases, tangent_examples
from torch_conformance.oracles.triage.gradients import (
    OVERLAPPING_OUTPUT_TANGENT,
    explained_backward,
)
from torch_conformance.suites.catalog import builtin_specs
from torch_conformance.suites.policy import check_examples, selected_modes

TORCH_ROPE = next(s for s in builtin_specs() if s.name == "rotary_embedding_torch")
CONTIGUOUS_ONLY, NO_AUTOGRAD, WRONG_BACKWARD_FAKE, ON_KERNEL_KEY = backward_zoo.SPECS
RMS_NORM = next(s for s in builtin_specs() if s.name == "rms_norm")
SILU_FUNCTIONAL = next(s for s in builtin_specs() if s.name == "silu_and_mul_functional")
[OVERWRITES_SAVED] = activation_zoo.SPECS
NO_MEAN_TERM = next(s for s in norm_zoo.SPECS if s.name == "rms_norm_no_mean_term")
SAVES_OUTPUT = next(s for s in norm_zoo.SPECS if s.name == "rms_norm_saves_output")
NO_SIZE_ASSERTS = COMPILED["inductor_no_size_asserts"]
PERMUTED_ROWS = norm_zoo.PERMUTED_ROWS
FEW = settings(max_examples=6, database=None)


def _case(spec, layouts):
    """The spec's seed example, its upstream gradients in ``layouts``."""
    return dataclasses.replace(spec.examples[0], tangents=layouts)


def test_upstream_gradients_come_in_the_layouts_a_backward_receives():
    shaped = torch.empty(3, 4, dtype=torch.bfloat16)
    generator = torch.Generator().manual_seed(0)
    assert tangent_for(shaped, "contiguous", generator).is_contiguous()
    assert tangent_for(shaped, "transposed", generator).stride() == (1, 3)
    assert tangent_for(shaped, "strided", generator).stride() == (8, 2)
    assert tangent_for(shaped, "expanded", generator).stride() == (0, 1)


def test_a_differentiable_op_passes_both_backward_checks():
    for case in sample(tangent_cases(TORCH_ROPE), 4):
        assert check_backward(TORCH_ROPE, case) == [], case.describe()
    run_property(TORCH_ROPE, "compiled_backward", settings(max_examples=2, database=None))


def test_a_backward_wrong_for_strided_upstream_gradients_is_caught_eagerly():
    with CONTIGUOUS_ONLY.installed():
        assert check_backward(CONTIGUOUS_ONLY, _case(CONTIGUOUS_ONLY, ("contiguous",))) == []
        found = check_backward(CONTIGUOUS_ONLY, _case(CONTIGUOUS_ONLY, ("strided",)))
    assert [f.verdict for f in found] == [VALUES], found
    assert "the gradient of buffer 'qkv'" in str(found[0])
    assert "from the float64 reference in eager" in str(found[0])
    assert "[ULP budget 2]" in str(found[0])
    # Shrunk: the search finds the non-contiguous upstream gradient it needs.
    with pytest.raises(CheckFailure) as failed:
        run_property(CONTIGUOUS_ONLY, "backward", FEW, shrink_seconds=10)
    assert "upstream gradients" in str(failed.value)
    assert "contiguous)" not in str(failed.value).split("upstream gradients")[1].split("\n")[0]


def test_the_compiled_backward_disagrees_with_eager_where_the_formula_is_wrong():
    with CONTIGUOUS_ONLY.installed():
        found = check_compiled_backward(
            CONTIGUOUS_ONLY, _case(CONTIGUOUS_ONLY, ("transposed",)), None, INDUCTOR
        )
    assert VALUES in {f.verdict for f in found}, found
    assert any("differ bit for bit between inductor and eager" in str(f) for f in found)


def test_no_stage_is_blamed_where_eagers_gradients_are_already_wrong():
    case = _case(CONTIGUOUS_ONLY, ("transposed",))
    with CONTIGUOUS_ONLY.installed():
        found = check_compiled_backward(CONTIGUOUS_ONLY, case, None, INDUCTOR)
        failure = ConformanceFailure("compiled_backward", CONTIGUOUS_ONLY.label, "", found, [case])
        *_, stage = CHECKS["compiled_backward"].finish(CONTIGUOUS_ONLY, INDUCTOR, failure)
    assert stage.verdict == "stage" and not stage.blocking
    assert "no compiler stage is at fault: eager itself already disagrees" in stage.message
    assert "from the float64 reference in eager" in stage.message


def test_a_missing_autograd_formula_says_what_to_register():
    with NO_AUTOGRAD.installed():
        found = check_backward(NO_AUTOGRAD, _case(NO_AUTOGRAD, ("contiguous",)))
        compiled = check_compiled_backward(
            NO_AUTOGRAD, _case(NO_AUTOGRAD, ("contiguous",)), None, INDUCTOR
        )
    assert [f.verdict for f in found] == [AUTOGRAD], found
    assert "has no autograd formula" in str(found[0])
    assert "torch.library.register_autograd" in str(found[0])
    # Nothing to compare the compiled gradients with: no verdict, never a pass.
    assert [f.verdict for f in compiled] == [HARNESS]


def test_a_formula_registered_at_a_backend_key_is_named_though_eager_is_right():
    """An autograd.Function inside the op's CPU kernel: eager gradients are
    right, and torch.compile, which traces the fake, differentiates nothing."""
    case = _case(ON_KERNEL_KEY, ("contiguous",))
    with ON_KERNEL_KEY.installed():
        found = check_backward(ON_KERNEL_KEY, case)
        compiled = check_compiled_backward(ON_KERNEL_KEY, case, None, INDUCTOR)
    assert [f.verdict for f in found] == [AUTOGRAD] and compiled == found, found
    assert "has no kernel at an autograd key" in str(found[0])
    assert "kernel registered for CPU" in str(found[0])
    assert "torch.library.register_autograd" in str(found[0])
    # Right registrations (the formula at the Autograd key, or none at all) say nothing of it.
    with CONTIGUOUS_ONLY.installed(), NO_AUTOGRAD.installed():
        assert check_backward(CONTIGUOUS_ONLY, _case(CONTIGUOUS_ONLY, ("contiguous",))) == []
        missing = check_backward(NO_AUTOGRAD, _case(NO_AUTOGRAD, ("contiguous",)))
    assert "no kernel at an autograd key" not in str(missing[0])


def _hidden_one(dtype: torch.dtype) -> Case:
    """A row of one element: rms_norm's input gradient cancels to next to nothing."""
    buffers = {"input": Buffer((1, 1), dtype), "weight": Buffer((1,), dtype)}
    args = {"input": View("input"), "weight": View("weight"), "epsilon": 1e-6}
    return Case(buffers, args, seed=3, tangents=("contiguous",))


def test_a_norms_gradients_are_judged_at_the_scale_its_reference_writes(monkeypatch):
    """rms_norm's input gradient, inv (g w - x inv^2 mean(g w x)), subtracts
    terms that cancel. Its reference writes the scale its gradients are
    judged at (``Expected.gradient``): the C++ backward kernel passes, and a
    formula that forgets the second term fails. Judged at the gradient of its
    outputs' scale instead, the right kernel would fail where the terms cancel."""
    cases = [*tangent_examples(RMS_NORM), *sample(tangent_cases(RMS_NORM), 12)]
    with RMS_NORM.installed():
        for case in [*cases, _hidden_one(torch.float32)]:
            assert check_backward(RMS_NORM, case) == [], case.describe()
        found = check_compiled_backward(RMS_NORM, cases[0], None, INDUCTOR)
        assert found == [], found
        monkeypatch.setattr(Expected, "gradient_scale", property(lambda self: self.scale))
        cancelled = check_backward(RMS_NORM, _hidden_one(torch.float32))
    assert [f.verdict for f in cancelled] == [VALUES]
    with NO_MEAN_TERM.installed():
        wrong = check_backward(NO_MEAN_TERM, tangent_examples(NO_MEAN_TERM)[0])
    assert [f.verdict for f in wrong] == [VALUES], wrong
    assert "the gradient of buffer 'input'" in str(wrong[0]) and "[ULP budget 4]" in str(wrong[0])
    assert "declares read-only" not in str(wrong[0])  # it writes nothing


def test_a_formula_that_reads_an_input_its_kernel_overwrote_is_caught_eagerly():
    """The kernel leaves silu(gate) in its input, undeclared, and the formula
    saved that input: eager and compiled gradients agree, both wrong, and the
    float64 gradients say so, naming the write."""
    case = _case(OVERWRITES_SAVED, ("contiguous",))
    with OVERWRITES_SAVED.installed():
        found = check_backward(OVERWRITES_SAVED, case)
        compiled = check_compiled_backward(OVERWRITES_SAVED, case, None, INDUCTOR)
    assert [f.verdict for f in found] == [VALUES], found
    assert "the gradient of buffer 'input'" in str(found[0])
    assert (
        "the op wrote 176128 element(s) of 'input', which its schema declares read-only: an "
        "autograd formula that saves it reads what the kernel wrote" in str(found[0])
    )
    assert compiled == []


def test_a_compile_that_differentiates_nothing_is_no_verdict():
    """Dynamo alone hands autograd its graph's own operations: the gradients
    are eager's, whatever the check compares."""
    dynamo_only = dataclasses.replace(COMPILED["aot_eager"], name="dynamo_eager", backend="eager")
    case = _case(TORCH_ROPE, ("contiguous",))
    found = check_compiled_backward(
        TORCH_ROPE, case, None, dataclasses.replace(dynamo_only, stage=1)
    )
    assert [f.verdict for f in found] == [HARNESS], found
    assert "autograd differentiated it eagerly" in str(found[0])
    # A drawn program's backward that proves nothing blocks too.
    drawn = next(c for c in sample(program_cases(TORCH_ROPE), 4) if c.tangents)
    found = check_programs(TORCH_ROPE, drawn, None, dataclasses.replace(dynamo_only, stage=1))
    assert [(f.verdict, f.blocking) for f in found] == [(HARNESS, True)], found
    assert found[0].message.startswith(BACKWARD) and "differentiated it eagerly" in str(found[0])


def test_backward_checks_run_in_no_deployment_mode_and_a_compile_is_an_example():
    assert {m.name for m in CHECKS["compiled_backward"].modes}.isdisjoint({"export", "aoti"})
    assert "export" in selected_modes("all")
    assert check_examples("compiled_backward") == 2  # the dev profile's
    assert check_examples("compiled_backward", 9) == 9  # a budget of compiles


def test_a_backward_ops_wrong_fake_fails_the_compiled_backward_alone():
    """The kernel of the backward is right, so eager gradients are; its fake
    claims the forward inputs' layout, which the compiled backward asserts."""
    case = _case(WRONG_BACKWARD_FAKE, ("contiguous",))
    with WRONG_BACKWARD_FAKE.installed():
        assert check_backward(WRONG_BACKWARD_FAKE, case) == []
        found = check_compiled_backward(WRONG_BACKWARD_FAKE, case, None, INDUCTOR)
    assert [f.verdict for f in found] == [COMPILED_VERDICT], found
    assert "stride 4096==6144" in str(found[0])
    assert "rope_backward_kernel" in str(found[0]) and "incorrect fake" in str(found[0])
    # The stage at fault: AOTAutograd runs the real backward kernel and agrees;
    # Inductor alone trusts the fake.
    failure = ConformanceFailure("compiled_backward", "op", case.describe(), found, (case,))
    with WRONG_BACKWARD_FAKE.installed():
        *_, stage = CHECKS["compiled_backward"].finish(WRONG_BACKWARD_FAKE, INDUCTOR, failure)
    assert stage.verdict == STAGE and not stage.blocking, stage
    assert "every stage before inductor (Dynamo" in stage.message, stage
    assert "the difference arises in Inductor" in stage.message and "fake check" in stage.message


def test_a_saved_output_laid_out_other_than_its_fake_claims_is_named_in_the_backward(tmp_path):
    """The kernel returns its output in a permuted input's layout, the fake
    says contiguous, and the formula saves the output: where no size assert
    checks it, the compiled backward is handed the saved output in a layout
    it was not compiled for, and its script says so too. Eager gradients are
    right; with size asserts the forward already fails on the op's output;
    rms_norm saves its input and weight, laid out as their fakes say, and is
    silent."""
    saved = (
        "saved tensor 2 (rms_norm_saves_output) reached the backward "
        "inductor_no_size_asserts compiled with shape [3, 2, 8] and strides (8, 24, 1), but "
        "that backward was compiled for shape [3, 2, 8] and strides (16, 8, 1)"
    )
    with SAVES_OUTPUT.installed():
        assert check_backward(SAVES_OUTPUT, PERMUTED_ROWS) == []
        found = check_compiled_backward(SAVES_OUTPUT, PERMUTED_ROWS, None, NO_SIZE_ASSERTS)
        asserted = check_compiled_backward(SAVES_OUTPUT, PERMUTED_ROWS, None, INDUCTOR)
        script = write_repro(
            SAVES_OUTPUT, "compiled_backward", [PERMUTED_ROWS], 0, False, tmp_path / "s.py",
            NO_SIZE_ASSERTS.name,
        )  # fmt: skip
    assert [f.verdict for f in found] == [FAKE], found
    assert found[0].message.startswith(saved), found
    assert [f.verdict for f in asserted] == [COMPILED_VERDICT], asserted
    assert "rms_norm_saves_output" in asserted[0].message
    with RMS_NORM.installed():
        assert check_compiled_backward(RMS_NORM, PERMUTED_ROWS, None, NO_SIZE_ASSERTS) == []
    [reproduced] = _run(script, cwd=CHECKOUT)
    assert reproduced.returncode == 1, _explain(reproduced)
    assert f"[fake] {saved}" in reproduced.stdout, _explain(reproduced)


def test_a_backward_compiled_when_it_first_runs_compiles_in_the_mode(monkeypatch):
    """AOTAutograd compiles a backward when it first runs, after the forward
    returned: it must compile under the Mode's settings all the same."""
    compiled_with = []

    def inner(gm, example_inputs, **kwargs):
        if kwargs.get("is_backward"):
            compiled_with.append(torch._inductor.config.size_asserts)
        return compile_fx_inner(gm, example_inputs, **kwargs)

    monkeypatch.setattr(compiled_program, "compile_fx_inner", inner)
    fresh = dataclasses.replace(  # a program no other test compiled
        PERMUTED_ROWS, buffers={**PERMUTED_ROWS.buffers, "input": Buffer((2, 5, 8), torch.float32)}
    )
    with RMS_NORM.installed():
        assert check_compiled_backward(RMS_NORM, fresh, None, NO_SIZE_ASSERTS) == []
    assert compiled_with == [False]


def test_gradients_of_data_movement_are_judged_with_the_budget_of_their_sums():
    """A selection read three times sums three upstream values per element:
    the float64 gradient differs by rounding the spec's gradient budget allows,
    and a budget of 0 would not."""
    spec = next(s for s in builtin_specs() if s.name == "apply_interleaved_rope_slices")
    case = dataclasses.replace(spec.examples[0], tangents=("contiguous",))
    assert spec.gradient_budget == 1 and check_backward(spec, case) == []
    exact = dataclasses.replace(spec, grad_ulp_budget=0)
    assert [f.verdict for f in check_backward(exact, case)] == [VALUES]


def test_a_spec_says_which_gradient_budget_it_means():
    with pytest.raises(SpecError, match="grad_ulp_budget must be an int >= 0 or None, got -1"):
        validate(dataclasses.replace(TORCH_ROPE, grad_ulp_budget=-1), "here")
    with pytest.raises(SpecError, match="grads needs a reference"):
        validate(dataclasses.replace(TORCH_ROPE, reference=None, bit_exact=True), "here")


def test_the_backward_checks_scripts_reproduce_what_they_found(tmp_path):
    """Each script runs forward and backward as the suite did: the eager
    script finds the formula wrong for a strided upstream gradient, and the
    formula inside a CPU kernel; the compiled one the backward op's fake; a
    right op's script agrees."""
    strided = _case(CONTIGUOUS_ONLY, ("strided",))
    with CONTIGUOUS_ONLY.installed():
        eager = write_repro(CONTIGUOUS_ONLY, "backward", [strided], 0, False, tmp_path / "e.py")
    with WRONG_BACKWARD_FAKE.installed():
        case = _case(WRONG_BACKWARD_FAKE, ("contiguous",))
        compiled = write_repro(
            WRONG_BACKWARD_FAKE, "compiled_backward", [case], 0, False, tmp_path / "c.py"
        )
    with ON_KERNEL_KEY.installed():
        misplaced = write_repro(
            ON_KERNEL_KEY, "backward", [_case(ON_KERNEL_KEY, ("contiguous",))], 0, False,
            tmp_path / "k.py",
        )  # fmt: skip
    transposed = _case(TORCH_ROPE, ("transposed",))
    good = write_repro(TORCH_ROPE, "compiled_backward", [transposed], 0, False, tmp_path / "g.py")
    assert '"tangents": ("strided",)' in eager.read_text()
    bad_eager, bad_compiled, bad_key = _run(eager, compiled, misplaced, cwd=CHECKOUT)
    assert bad_eager.returncode == 1, _explain(bad_eager)
    assert "[values] the gradient of buffer 'qkv'" in bad_eager.stdout
    assert "[ULP budget 2]" in bad_eager.stdout
    assert bad_compiled.returncode == 1, _explain(bad_compiled)
    assert "rope_backward_kernel" in bad_compiled.stdout and "stride" in bad_compiled.stdout
    assert bad_key.returncode == 1, _explain(bad_key)
    assert "[autograd]" in bad_key.stdout and "inside a backend kernel" in bad_key.stdout
    [right] = _run(good, cwd=CHECKOUT)
    assert right.returncode == 0, _explain(right)
    assert "OK: the compiled gradients are within 2 ULP" in right.stdout


def test_a_library_ops_scripts_register_its_python_formula_as_the_suite_did(tmp_path):
    """rms_norm's kernels are C++ and its fake and formula Python, registered
    by a call (its prepare's): the scripts make that call, so the eager one
    passes where the suite does and the zoo's wrong formula still fails. A
    compiled script with no formula to differentiate gives no verdict."""
    scripts = []
    for spec, check in [
        (RMS_NORM, "backward"),
        (RMS_NORM, "compiled_backward"),
        (NO_MEAN_TERM, "backward"),
        (NO_AUTOGRAD, "compiled_backward"),
    ]:
        with spec.installed():
            case = _case(spec, ("strided",))
            path = tmp_path / f"{spec.name}_{check}.py"
            scripts.append(write_repro(spec, check, [case], 0, False, path))
    assert ".register()" in scripts[0].read_text()
    assert "register_fake" not in scripts[0].read_text()  # the call registers it
    right, compiled, wrong, missing = _run(*scripts, cwd=CHECKOUT)
    assert right.returncode == 0, _explain(right)
    assert "OK: every gradient is within 4 ULP" in right.stdout
    assert compiled.returncode == 0, _explain(compiled)
    assert wrong.returncode == 1, _explain(wrong)
    assert "[values] the gradient of buffer 'input'" in wrong.stdout
    assert missing.returncode == 1, _explain(missing)
    assert "[harness] no verdict:" in missing.stdout and "no autograd formula" in missing.stdout


def test_silu_and_mul_gradients_are_judged_at_the_magnitude_of_their_terms(monkeypatch):
    """silu's derivative s (1 + gate (1 - s)) is 0 near gate -1.28: a
    float32 backward that rounds each term keeps none of the digits of the
    difference there. Judged at its terms' magnitudes (the reference's
    gradient scale) the C++ kernel passes and a formula that forgets the
    second term fails; judged at the gradient of the outputs' scale, the
    right kernel would fail."""
    model = contiguous_model(SILU_FUNCTIONAL_ROWS, 2, torch.float32, 4096, {})
    wide = dataclasses.replace(rows_case(model, (16,)), tangents=("contiguous",))
    cases = [*tangent_examples(SILU_FUNCTIONAL), *sample(tangent_cases(SILU_FUNCTIONAL), 12)]
    with SILU_FUNCTIONAL.installed():
        for case in [*cases, wide]:
            assert check_backward(SILU_FUNCTIONAL, case) == [], case.describe()
        buffers = wide.allocate()
        grad = torch.randn(16, 4096, generator=torch.Generator().manual_seed(0))
        input = buffers["input"]
        expected = silu_reference.silu_and_mul_backward_outputs(grad, input).outputs[0]
        right = torch.ops.conformance.silu_and_mul_backward(grad, input)
        gate, up = input.chunk(2, dim=-1)
        forgetful = torch.cat([grad * up * torch.sigmoid(gate), grad * F.silu(gate)], dim=-1)
        monkeypatch.setattr(Expected, "gradient_scale", property(lambda self: self.scale))
        cancelled = check_backward(SILU_FUNCTIONAL, wide)
    assert within_ulps("the gradient", right, expected, 4, "eager") == []
    wrong = within_ulps("the gradient", forgetful, expected, 4, "eager")
    assert [f.verdict for f in wrong] == [VALUES], wrong
    assert [f.verdict for f in cancelled] == [VALUES], cancelled


def test_a_gradient_scale_adds_up_the_terms_of_an_input_used_beside_the_op():
    """A program that returns the input next to silu_and_mul's output: the
    input's gradient sums the op's term and the upstream gradient of the
    input itself, which can cancel. Its scale is the sum of both terms'
    magnitudes (each gradient scale takes the sign of its input element),
    not their difference, so an eager float16 gradient within 1.5 ULP of
    both terms passes."""
    program = Program(("input",), (Step("op", (), (), 1),), (1, 0))
    buffers = {"input": Buffer((8, 64), torch.float16)}
    case = Case(buffers, {"input": View("input")}, seed=3, program=program)
    case = dataclasses.replace(case, tangents=("contiguous",))
    with SILU_FUNCTIONAL.installed():
        wrt, eager, _ = eager_backward(SILU_FUNCTIONAL, case)

        def expected(tangents: dict) -> Expected:
            originals = case.allocate()
            function = around(SILU_FUNCTIONAL, case)
            reference = SILU_FUNCTIONAL.reference
            return gradient_expectation(function, reference, originals, case.bind, wrt, tangents)[
                "input"
            ]

        both = expected(eager.tangents)
        each = [expected({i: g}) for i, g in eager.tangents.items()]
    assert torch.allclose(both.scale, each[0].scale + each[1].scale, rtol=1e-12, atol=0)
    gate = case.allocate()["input"][:, :32]
    assert (gate < 0).any(), "the Case must hold negative gates, where the terms had cancelled"
    assert within_ulps("the gradient", eager.grads["input"], both, 4, "eager") == []


def test_a_drawn_program_can_end_with_a_backward_through_the_op(tmp_path):
    """The programs check differentiates half the drawn programs of a spec
    with grads and judges the compiled gradients against the float64
    program's. A backward op's fake wrong for its kernel fails there, its
    script the compiled backward's around the drawn program; an op with no
    formula gives a note, not a failure; a right op is silent."""
    programs = CHECKS["programs"]
    with WRONG_BACKWARD_FAKE.installed():
        drawn = [c for c in sample(program_cases(WRONG_BACKWARD_FAKE), 6) if c.tangents]
        judged = [(c, check_programs(WRONG_BACKWARD_FAKE, c, None, INDUCTOR)) for c in drawn]
        failing, found = next((c, f) for c, f in judged if any(x.blocking for x in f))
        script = tmp_path / "p.py"
        backward_script = CHECKS[programs.script_check(found)]
        write_repro(WRONG_BACKWARD_FAKE, backward_script, [failing], 0, False, script)
    assert [x.verdict for x in found] == [COMPILED_VERDICT], found
    assert found[0].message.startswith(BACKWARD) and "stride" in found[0].message
    assert "in the backward" in bug_key(found, INDUCTOR, failing.program)
    with NO_AUTOGRAD.installed():
        [case] = [c for c in sample(program_cases(NO_AUTOGRAD), 4) if c.tangents][:1]
        [note] = check_programs(NO_AUTOGRAD, case, None, INDUCTOR)
    assert note.verdict == HARNESS and not note.blocking and "autograd kernel was not" in str(note)
    [run] = _run(script, cwd=CHECKOUT)
    assert run.returncode == 1 and "rope_backward_kernel" in run.stdout, _explain(run)
    for case in [c for c in sample(program_cases(TORCH_ROPE), 4) if c.tangents][:1]:
        assert check_programs(TORCH_ROPE, case, None, INDUCTOR) == [], case.describe()


def test_a_drawn_programs_backward_script_judges_by_the_budget_where_bits_differ(tmp_path):
    """silu_and_mul's float16 gradients in a program that uses its input
    beside the op: Inductor sums them in another order, so their bits differ
    from eager's, within the budget of the float64 ones. The check passes it,
    and so does its script, which judges as the check does."""
    steps = (
        Step("slice", (0,), (2, 220, 841, 2), 1),
        Step("narrow", (0,), (0, 1, 1), 1),
        Step("transpose", (1,), (2, 0), 1),
        Step("op", (), (), 1),
        Step("clone", (4,), (), 1),
        Step("reshape", (3,), ((-1,),), 1),
        Step("unfold", (2,), (1, 2, 3), 1),
    )
    program = Program(("input",), steps, (4, 5, 6, 7, 2))
    buffers = {"input": Buffer((5, 5, 2001), torch.float16)}
    view = View("input", (("narrow", 1, 0, 2), ("narrow", 2, 1, 2000), ("permute", (1, 0, 2))))
    case = Case(buffers, {"input": view}, seed=350241, program=program)
    case = dataclasses.replace(case, tangents=("strided", "contiguous", "transposed"))
    script = tmp_path / "backward.py"
    with SILU_FUNCTIONAL.installed():
        _, eager, _ = eager_backward(SILU_FUNCTIONAL, case)
        compiled, _, _ = compiled_backward(SILU_FUNCTIONAL, case, INDUCTOR)
        assert check_programs(SILU_FUNCTIONAL, case, None, INDUCTOR) == []
        write_repro(SILU_FUNCTIONAL, CHECKS["compiled_backward"], [case], 0, False, script)
    assert not torch.equal(eager.grads["input"], compiled.grads["input"])
    [run] = _run(script, cwd=CHECKOUT)
    assert run.returncode == 0 and "OK: " in run.stdout, _explain(run)


def test_a_backward_known_fault_is_matched_by_the_gradients_it_predicts():
    """An overlapping unfold of the op's output, returned: the compiled
    gradient is wrong where windows overlap, and eager computes it bit for
    bit once the upstream gradient is copied into the unfold's layout."""
    spec = next(s for s in builtin_specs() if s.name == "apply_interleaved_rope_where")
    program = Program(
        ("x",), (Step("op", (), (), 1), Step("unfold", (1,), (1, 3, 2), 1)), (2,), frozenset({0})
    )
    buffers = {"cache": Buffer((3, 11, 64), torch.float32)}
    args = {"x": View("cache", (("narrow", -1, 0, 32),)), "mrope_section": [8, 12, 12]}
    case = Case(buffers, args, seed=1, program=program, tangents=("contiguous",))
    [found] = check_programs(spec, case, None, INDUCTOR)
    if not OVERLAPPING_OUTPUT_TANGENT.affects():
        pytest.skip(f"torch {torch.__version__} is not known to have the fault")
    assert found.verdict == KNOWN_COMPILER_FAULT and not found.blocking, found
    assert "'overlapping output tangent'" in str(found)
    assert "copied into a tensor laid out as its output" in str(found)


def test_a_drawn_programs_gradient_layout_is_a_note():
    """A permuted input returned next to the op's output: its gradient is a
    sum, laid out eagerly as the input's view and contiguous by Inductor. No
    layout is promised for it: a note that says so, not a failure. The
    spec's own program, whose gradient is what the backward op returns,
    agrees in layout."""
    spec = next(s for s in builtin_specs() if s.name == "apply_interleaved_rope_slices")
    program = Program(("x",), (Step("op", (), (), 1),), (1, 0))
    buffers = {"cache": Buffer((4, 3, 46), torch.float32)}
    args = {"x": View("cache", (("permute", (1, 2, 0)),)), "mrope_section": [1, 2, 1]}
    case = Case(buffers, args, seed=1, program=program, tangents=("contiguous", "contiguous"))
    with spec.installed():
        [note] = check_programs(spec, case, None, INDUCTOR)
        own = check_compiled_backward(spec, dataclasses.replace(case, program=None), None, INDUCTOR)
    assert note.verdict == INTERMEDIATE_STRIDES and not note.blocking, note
    assert note.message.startswith(f"{BACKWARD}the gradient of buffer 'cache'.stride()")
    assert "torch.autograd.grad promises no layout" in str(note)
    assert own == []


def test_a_backward_known_fault_demotes_only_its_predicted_gradients():
    """A wrong gradient other than the fault's prediction stays blocking, as
    does one where the prediction is eager's own answer (the fault changes
    nothing there, so it explains nothing)."""
    finding = Finding(VALUES, f"{BACKWARD}the gradient of buffer 'x' differs")

    def run(*values: float) -> Backward:
        return Backward((), (), {"x": torch.tensor(values)}, {})

    eager, predicted = run(2.0, 14.0), run(2.0, 16.0)
    assert explained_backward([finding], ["x"], run(2.0, 15.0), eager, predicted) == [finding]
    assert explained_backward([finding], ["x"], run(2.0, 16.0), eager, eager) == [finding]
    [demoted] = explained_backward([finding], ["x"], run(2.0, 16.0), eager, predicted)
    assert demoted.verdict == KNOWN_COMPILER_FAULT and not demoted.blocking
