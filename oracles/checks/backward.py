"""The backward check: the program's eager gradients, with respect to the
buffers behind the arguments the spec differentiates (``Spec.grads``), lie
within the spec's ULP budget of the float64 ones (its reference in the op's
place), for upstream gradients laid out as a model's backward passes them:
transposed, strided, expanded."""

from __future__ import annotations

import dataclasses

from oracles.checks.check import Check, of_case
from oracles.checks.gradient_runs import (
    eager_backward,
    failed_run,
    formula_at_a_backend_key,
    formula_inside_kernel,
    no_formula,
)
from oracles.checks.gradient_script import EAGER_SCRIPT
from oracles.comparisons.expected import NotDifferentiable, gradient_expectation
from oracles.comparisons.values import within_ulps
from oracles.comparisons.writes import writes
from oracles.core.case import Case
from oracles.core.findings import Finding
from oracles.core.spec import Spec, SpecError
from oracles.core.verdicts import AUTOGRAD, CRASH, OUTPUTS, VALUES
from oracles.modes.eager import EAGER
from oracles.modes.programs import around
from oracles.strategies.upstream import upstream_cases, upstream_examples


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
    if not run.upstream:
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
            around(spec, case), spec.reference, case.allocate(), case.bind, wrt, run.upstream
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


CHECK = Check(
    of_case(check_backward),
    "eager gradients against the float64 reference's",
    (VALUES, OUTPUTS, CRASH, AUTOGRAD),
    order=1,
    applies=lambda spec: bool(spec.grads),
    cases=upstream_cases,
    examples=upstream_examples,
    script=EAGER_SCRIPT,
)
