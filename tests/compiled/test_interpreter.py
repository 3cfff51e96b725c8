"""Triton's interpreter is known-answer tested, and its wrong bfloat16
arithmetic is never blamed on a correct kernel."""

from __future__ import annotations

import pytest
import torch
from hypothesis import settings
from hypothesis import strategies as st

from oracles.core.case import Buffer, Case, View
from oracles.core.findings import CheckFailure, Finding
from oracles.core.reference import Expectation, Expected
from oracles.core.spec import Spec
from oracles.core.verdicts import NOT_JUDGEABLE
from oracles.modes import interpreter
from oracles.runner.property import Tally, run_property
from oracles.triage.faults import FAULTS

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
