"""The gradients judged: eager's against the float64 gradients (the backward
check), and a compiled backward's against eager's (the compiled backward
check, and the generated programs that end with a backward)."""

from __future__ import annotations

import dataclasses

from torch_conformance.oracles.comparisons.expected import NotDifferentiable, gradient_expectation
from torch_conformance.oracles.comparisons.outputs import metadata
from torch_conformance.oracles.comparisons.values import bit_exact, within_ulps
from torch_conformance.oracles.comparisons.writes import writes
from torch_conformance.oracles.core.buffers import Case
from torch_conformance.oracles.core.findings import Finding, error_text
from torch_conformance.oracles.core.specification import Spec, SpecError
from torch_conformance.oracles.core.verdicts import (
    AUTOGRAD,
    HARNESS,
    INTERMEDIATE_STRIDES,
    OUTPUTS,
    VALUES,
)
from torch_conformance.oracles.judging.differential import compile_failure
from torch_conformance.oracles.judging.gradient_runs import (
    compiled_backward,
    eager_backward,
    failed_run,
    formula_at_a_backend_key,
    formula_inside_kernel,
    no_formula,
)
from torch_conformance.oracles.modes.compiled import Compiled
from torch_conformance.oracles.modes.eager import EAGER
from torch_conformance.oracles.modes.mode import Mode
from torch_conformance.oracles.modes.programs import around


def gradient_label(name: str) -> str:
    """How a message names the gradient of a buffer."""
    return f"the gradient of buffer {name!r}"


def one_sided(name: str, got_has: bool, got_mode: str, want_mode: str) -> Finding:
    """Only one of two runs gives a buffer a gradient."""
    gives, lacks = (got_mode, want_mode) if got_has else (want_mode, got_mode)
    return Finding(OUTPUTS, f"{gives} gives {gradient_label(name)} but {lacks} gives none")


def check_backward(spec: Spec, case: Case) -> list[Finding]:
    """Eager gradients within the spec's ULP budget of the float64 ones."""
    wrt, run, warned = eager_backward(spec, case)
    # Eager is right where the formula is inside the kernel, and torch warns
    # as for none at all: only this says what a compile loses.
    if formula_inside_kernel(spec.overload, run.outputs):
        return [formula_at_a_backend_key(spec)]
    if warned is not None:
        return [no_formula(spec, warned)]
    if run.error is not None:
        return failed_run(spec, run, "eager")
    if not wrt:  # every differentiated argument is None in this Case
        return []
    if not run.tangents:
        return [
            Finding(
                AUTOGRAD,
                f"no output of {spec.label}'s program requires a gradient, though it "
                f"is given {', '.join(wrt)} that do: its autograd formula records nothing",
            )
        ]
    assert spec.reference is not None, "validation refuses grads without a reference"
    try:
        expected = gradient_expectation(
            around(spec, case), spec.reference, case.allocate(), case.bind, wrt, run.tangents
        )
    except NotDifferentiable as error:
        raise SpecError(f"spec {spec.name!r}: {error}") from None
    found = []
    for name in wrt:
        got, want = run.grads[name], expected[name]
        if (got is None) != (want is None):
            found.append(one_sided(name, got is not None, "eager", "the float64 program"))
        elif got is not None and want is not None:
            found += within_ulps(gradient_label(name), got, want, spec.gradient_budget, "eager")
    return _with_undeclared_writes(spec, case, found)


def _with_undeclared_writes(spec: Spec, case: Case, found: list[Finding]) -> list[Finding]:
    """Wrong gradients of an op that writes arguments its schema declares
    read-only: said beside them, as a formula that saves such an argument
    reads the values written (torch's version counter sees no write the
    schema does not declare, so eager says nothing)."""
    if not any(f.verdict == VALUES for f in found):
        return found
    eager = EAGER.run(spec, case)
    if eager.error is not None:
        return found
    undeclared = [
        f.message.split(",")[0]
        for f in writes(case, eager, spec.declared_writes, None, spec.ulp_budget)
        if "declares read-only" in f.message
    ]
    if not undeclared:
        return found
    cause = (
        f" ({'; '.join(undeclared)}, which its schema declares read-only: an autograd "
        "formula that saves it reads what the kernel wrote; see the schema check)"
    )
    return [
        dataclasses.replace(f, message=f.message + cause) if f.verdict == VALUES else f
        for f in found
    ]


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
    if warned is not None or eager.error is not None or (wrt and not eager.tangents):
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
            around(spec, case), spec.reference, case.allocate(), case.bind, wrt, eager.tangents
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
