"""The compiled backward check: the program compiled in a compiled Mode, and
differentiated through the backward that compile made (AOTAutograd's joint
graph, partitioned, compiled), gives the eager gradients: bit for bit, or
for a spec judged by ULP budget within it of the float64 gradients; with
eager's shapes, strides and offsets either way."""

from __future__ import annotations

import dataclasses

from oracles.checks.backward import check_backward, gradient_label, one_sided
from oracles.checks.check import Check
from oracles.checks.differential import compile_failure
from oracles.checks.gradient_runs import (
    compiled_backward,
    eager_backward,
    formula_at_a_backend_key,
    formula_inside_kernel,
)
from oracles.checks.gradient_script import COMPILED_SCRIPT
from oracles.comparisons.expected import gradient_expectation
from oracles.comparisons.outputs import metadata
from oracles.comparisons.values import bit_exact, within_ulps
from oracles.core.case import Case
from oracles.core.findings import ConformanceFailure, Finding, error_text
from oracles.core.signature import BatchSignature
from oracles.core.spec import Spec
from oracles.core.verdicts import (
    AUTOGRAD,
    COMPILED,
    FAKE,
    HARNESS,
    INTERMEDIATE_STRIDES,
    METADATA,
    OUT_ARGUMENT,
    OUTPUTS,
    SIZE_1_STRIDES,
    STAGE,
    VALUES,
)
from oracles.modes.compiled import COMPILED as COMPILED_MODES
from oracles.modes.compiled import Compiled
from oracles.modes.mode import Mode
from oracles.modes.programs import around
from oracles.strategies.upstream import upstream_cases, upstream_examples
from oracles.triage.stage import stage_at_fault


def check_compiled_backward(
    spec: Spec, case: Case, batch: BatchSignature | None, mode: Mode
) -> list[Finding]:
    """The compiled program's gradients agree with eager's."""
    return judged_backward(spec, case, mode, summed=False)


def judged_backward(spec: Spec, case: Case, mode: Mode, summed: bool) -> list[Finding]:
    """The compiled program's gradients against eager's: bit for bit where
    the spec is bit-exact, unless ``summed`` (a drawn program that may use a
    value several times, whose gradients are sums a compiled backward may
    add up in another order): then a gradient whose bits differ is judged
    by the spec's gradient budget against the float64 gradients, as an
    inexact spec's always are, and its layout does not block. A drawn
    program whose eager backward has no gradients to give (it raised, or
    nothing it returns needs one) gets a note: its forward was judged, and
    the spec's own program is judged apart. A compiled backward that proves
    nothing blocks either way."""
    assert isinstance(mode, Compiled)
    wrt, eager, warned = eager_backward(spec, case)
    if formula_inside_kernel(spec.overload, eager.outputs):  # the compile would say less
        return [formula_at_a_backend_key(spec)]
    if warned is not None or eager.error is not None or (wrt and not eager.upstream):
        why = (
            warned.split(". ")[0]
            if warned is not None
            else error_text(eager.error)
            if eager.error is not None
            else "no output of the program requires a gradient"
        )
        return [
            Finding(
                HARNESS,
                f"no verdict: the eager backward did not run to gradients ({why}), so there "
                "is nothing to compare",
                blocking=not summed,
            )
        ]
    if not wrt:
        return []
    compiled, vacuity, misread = compiled_backward(spec, case, mode)
    if compiled.error is not None:
        return [*misread, compile_failure(spec, mode, compiled.error)]
    if vacuity is not None:
        return [Finding(HARNESS, f"no verdict: {vacuity}")]
    if compiled.requires_grad != eager.requires_grad:
        return [
            Finding(
                OUTPUTS,
                f"the outputs that require gradients differ: {compiled.requires_grad} under "
                f"{mode.name}, {eager.requires_grad} eagerly",
            )
        ]
    found = misread
    for name in wrt:
        want, got, label = eager.grads[name], compiled.grads[name], gradient_label(name)
        if (want is None) != (got is None):
            found.append(one_sided(name, got is not None, mode.name, "eager"))
        elif want is not None and got is not None:
            found += _laid_out(metadata(label, want, got, mode.name, "eager", not summed))
            if spec.bit_exact:
                found += bit_exact(label, got, want, mode.name, "eager")
    blocking = [f for f in found if f.blocking]
    if spec.bit_exact and (not summed or not blocking):
        return found
    if not all(f.verdict == VALUES for f in blocking):
        return found
    assert spec.reference is not None, "validation refuses grads without a reference"
    try:
        expected = gradient_expectation(
            around(spec, case), spec.reference, case.allocate(), case.bind, wrt, eager.upstream
        )
    except Exception as error:  # a drawn program the float64 program cannot run
        raised = f"no verdict: the float64 program raised {error_text(error)}"
        return [Finding(HARNESS, raised, blocking=not summed)]
    found = [f for f in found if not f.blocking]
    for name in wrt:
        gradient, reference = compiled.grads[name], expected[name]
        if gradient is not None and reference is not None:
            label = gradient_label(name)
            found += within_ulps(label, gradient, reference, spec.gradient_budget, mode.name)
    return found


def _laid_out(found: list[Finding]) -> list[Finding]:
    """Layout Findings of a drawn program's gradients, which say why they do
    not block: a gradient summed over a value's uses, or passed back through
    views, is laid out as the backward's last operation makes it, eagerly as
    compiled, and ``torch.autograd.grad`` promises no layout. The spec's own
    program keeps its layouts significant: there the gradients are what the
    backward kernel (and its fake) return."""
    return [
        f
        if f.blocking or f.verdict != INTERMEDIATE_STRIDES
        else dataclasses.replace(
            f,
            message=f"{f.message} (a gradient of a drawn program, summed over its uses or "
            "passed back through views: torch.autograd.grad promises no layout for it)",
        )
        for f in found
    ]


def _stage(spec: Spec, mode: Mode, failure: ConformanceFailure) -> list[Finding]:
    """The failing Case's stage at fault: its forward and backward compiled
    again by each stage before ``mode`` (Dynamo alone leaves the backward to
    eager autograd over its graph; AOTAutograd compiles the backward, as
    Inductor does), then with Inductor's passes off in turn."""
    assert isinstance(mode, Compiled)
    case = failure.cases[failure.index]

    def compare(stage: Compiled) -> list[Finding]:
        return check_compiled_backward(spec, case, None, stage)

    return [*failure.findings, stage_at_fault(spec, mode, compare, check_backward(spec, case))]


CHECK = Check(
    check_compiled_backward,
    "the program compiled and differentiated, against eager's gradients",
    (
        VALUES,
        METADATA,
        SIZE_1_STRIDES,
        OUTPUTS,
        COMPILED,
        FAKE,
        OUT_ARGUMENT,
        AUTOGRAD,
        HARNESS,
        STAGE,
    ),
    order=3,
    modes=tuple(mode for mode in COMPILED_MODES.values() if not mode.deploy),
    finish=_stage,
    applies=lambda spec: bool(spec.grads),
    cases=upstream_cases,
    examples=upstream_examples,
    script=COMPILED_SCRIPT,
)
