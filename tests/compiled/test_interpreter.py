"""Triton's interpreter is known-answer tested, and its wrong bfloat16
arithmetic, or a mask it refuses, is never blamed on a correct kernel or on
Inductor."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
import torch
from hypothesis import settings
from hypothesis import strategies as st

from torch_conformance.oracles.core.buffers import Buffer, Case, View
from torch_conformance.oracles.core.expectation import Expectation, Expected
from torch_conformance.oracles.core.findings import CheckFailure, Finding
from torch_conformance.oracles.core.program import Program, Step
from torch_conformance.oracles.core.specification import Spec
from torch_conformance.oracles.core.verdicts import COMPILED, NOT_JUDGEABLE
from torch_conformance.oracles.modes import interpreter
from torch_conformance.oracles.repro.script import write_repro
from torch_conformance.oracles.runner.property import run_property
from torch_conformance.oracles.runner.replay import Replay
from torch_conformance.oracles.runner.tally import Tally
from torch_conformance.oracles.triage.faults import FAULTS
from torch_conformance.oracles.triage.interpreter import not_judgeable
from torch_conformance.suites.catalog import builtin_specs

pytestmark = pytest.mark.skipif(
    not interpreter.active(), reason="Triton kernels run natively here, not in its interpreter"
)

triton = pytest.importorskip("triton")
tl = pytest.importorskip("triton.language")


@triton.jit
def _scale_kernel(x_ptr, w_ptr, out_ptr, n, PLANTED: tl.constexpr, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask)
    w = tl.load(w_ptr + offsets, mask=mask)
    product = x * w  # in the tensors' own dtype, as serving kernels multiply
    if PLANTED and x.dtype == tl.float32:
        product = product * 1.0001  # a bug, in float32 only
    tl.store(out_ptr + offsets, product, mask=mask)


def _scale(planted: bool):
    def scale(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
        out = torch.empty_like(x)
        _scale_kernel[(triton.cdiv(x.numel(), 64),)](x, w, out, x.numel(), planted, BLOCK=64)
        return out

    return scale


def _reference(x: torch.Tensor, w: torch.Tensor) -> Expectation:
    value = x.double() * w.double()
    return Expectation(outputs=(Expected(value, value.abs()),))


@st.composite
def _cases(draw: st.DrawFn) -> Case:
    n = draw(st.integers(1, 100))
    dtype = draw(st.sampled_from([torch.float32, torch.bfloat16]))
    buffers = {"x": Buffer((n,), dtype), "w": Buffer((n,), dtype)}
    return Case(buffers, {"x": View("x"), "w": View("w")}, draw(st.integers(0, 9)))


def _spec(planted: bool) -> Spec:
    name = "planted_scale" if planted else "triton_scale"
    return Spec(name, _scale(planted), _cases(), _reference, ulp_budget=1)


def test_the_self_check_finds_the_bf16_faults_and_none_in_float32():
    found = {(fault.dtype, fault.operation) for fault in interpreter.faults()}
    if not FAULTS["triton_interpreter_bf16"].affects():
        pytest.skip(f"Triton {triton.__version__} multiplies bfloat16 right")
    assert (torch.bfloat16, "*") in found and (torch.bfloat16, "from float32") in found
    assert not [f for f in found if f[0] == torch.float32]
    example = next(f for f in interpreter.faults() if f.operation == "*")
    assert str(example).startswith("bfloat16 *: ") and "expected" in str(example)


def test_launches_count_the_interpreted_kernels_a_run_launched():
    x = torch.ones(130)
    with interpreter.launches() as launched:
        assert launched() == 0
        _scale(False)(x, x)
    assert launched() == 1


def test_a_correct_kernel_multiplying_in_bf16_is_not_blamed_for_the_interpreter():
    if not FAULTS["triton_interpreter_bf16"].affects():
        pytest.skip(f"Triton {triton.__version__} multiplies bfloat16 right")
    seen: list[Finding] = []
    tally = Tally()
    run_property(
        _spec(planted=False),
        "reference",
        settings(max_examples=30, database=None),
        on_finding=lambda finding, case: seen.append(finding),
        tally=tally,
    )
    [first, *_] = [f for f in seen if f.verdict == NOT_JUDGEABLE]
    assert not first.blocking and first.message.startswith("[values] out[0]: ")
    assert "not judgeable here" in first.message and "bfloat16 *: " in first.message
    assert "upstream/triton_interpreter_bf16.py" in first.message
    assert 0 < tally.not_judgeable < tally.cases  # the float32 Cases are judged


def test_the_same_kernel_with_a_bug_in_float32_still_fails():
    with pytest.raises(CheckFailure) as failed:
        run_property(_spec(planted=True), "reference", settings(max_examples=30, database=None))
    report = failed.value.report()
    assert "[values] out[0]" in report and "x=float32" in report
    assert "not judgeable" not in report.split("\n")[1]


def _refusal() -> interpreter.InterpreterFault:
    if not FAULTS["triton_interpreter_scalar_mask"].affects():
        pytest.skip(f"Triton {triton.__version__}'s interpreter takes a mask of scalar comparisons")
    return next(f for f in interpreter.faults() if f.dtype is None)


def test_the_self_check_finds_the_refused_scalar_mask():
    refusal = _refusal()
    assert refusal.error == "InterpreterError: ValueError('mask has unsupported dtype')"
    assert refusal.repro == "python upstream/triton_interpreter_scalar_mask.py"


# A dynamic program around a correct op that Inductor's Triton backend
# compiles with a mask the interpreter refuses: the doubled row is a narrow
# at a symbolic offset. The explorer found it.
_REFUSED_CASE = Case(
    {"result": Buffer((1, 2), torch.float32), "input": Buffer((2, 2), torch.float32)},
    {
        "result": View("result", (("narrow", 1, 1, 1),)),
        "input": View("input", (("narrow", 0, 0, 1),)),
    },
    0,
    program=Program(
        ("result", "input"),
        (Step("mul_", (0,), (), 0), Step("op", (), (), 0)),
        returns=(0,),
        dynamic=True,
    ),
)


def test_a_program_the_interpreter_refuses_is_not_judgeable_here():
    _refusal()
    spec = next(s for s in builtin_specs() if s.name == "silu_and_mul_triton")
    seen: list[Finding] = []
    tally = Tally()
    run_property(
        spec,
        "programs",
        settings(database=None),
        mode="inductor_triton",
        replay=Replay(spec.name, "programs", (_REFUSED_CASE,), 0, False, "inductor_triton"),
        on_finding=lambda finding, case: seen.append(finding),
        tally=tally,
    )
    [finding] = seen
    assert finding.verdict == NOT_JUDGEABLE and not finding.blocking
    assert finding.message.startswith("[compiled] the program compiled by inductor_triton failed")
    assert "upstream/triton_interpreter_scalar_mask.py" in finding.message
    assert tally.not_judgeable == 1


def test_another_error_of_the_interpreter_keeps_blocking():
    _refusal()
    case = Case({"x": Buffer((4,), torch.float32)}, {"x": View("x")}, 0)

    def failed(text: str) -> Finding:
        cause = ValueError(text)
        error = triton.runtime.errors.InterpreterError(repr(cause))
        error.__cause__ = cause
        return Finding(COMPILED, "the program compiled by inductor_triton failed", error=error)

    [refused] = not_judgeable([failed("mask has unsupported dtype")], case)
    assert refused.verdict == NOT_JUDGEABLE and not refused.blocking
    [other] = not_judgeable([failed("index out of bounds")], case)
    assert other.verdict == COMPILED and other.blocking


def test_the_standalone_script_compiles_what_the_suite_compiled(tmp_path):
    """A single Case's program compiled with dynamic shapes takes its views'
    sizes as inputs, as the suite's does; the script runs Triton's kernels in
    the interpreter as the suite did, set before the op's module defines them."""
    _refusal()
    spec = next(s for s in builtin_specs() if s.name == "silu_and_mul_triton")
    with spec.installed():
        script = write_repro(
            spec, "programs", [_REFUSED_CASE], 0, False, tmp_path / "refused.py",
            mode="inductor_triton", dynamic=True,
        )  # fmt: skip
    text = script.read_text()
    assert '"result": result.narrow(1, s0, s1),' in text
    assert text.index('os.environ.setdefault("TRITON_INTERPRET", "1")') < text.index(
        'importlib.import_module("torch_conformance.families.activation.triton_ops")'
    )
    environment = {
        k: v for k, v in os.environ.items() if k not in ("TRITON_INTERPRET", "PYTHONPATH")
    }
    run = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, env=environment, timeout=600
    )
    assert run.returncode == 1, run.stdout + run.stderr[-3000:]
    assert "mask has unsupported dtype" in run.stdout
