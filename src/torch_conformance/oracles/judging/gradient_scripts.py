"""The backward checks' standalone scripts: the program run forward and
backward as the suite runs it (the differentiated buffers leaves, copied
into the program; upstream gradients in the Case's layouts), then judged by
the suite's comparisons."""

from __future__ import annotations

import string

from torch_conformance.oracles.comparisons.expected import gradient_expectation
from torch_conformance.oracles.comparisons.outputs import metadata
from torch_conformance.oracles.comparisons.saved import saved_layouts
from torch_conformance.oracles.comparisons.values import bit_exact, within_ulps
from torch_conformance.oracles.core.buffers import Case
from torch_conformance.oracles.core.gradients import backward, differentiated
from torch_conformance.oracles.core.specification import Spec
from torch_conformance.oracles.judging.gradient_runs import (
    NO_FORMULA,
    formula_inside_kernel,
    saved_by,
)
from torch_conformance.oracles.judging.script_drivers import Script
from torch_conformance.oracles.modes.compiled_program import keeping_saved

# How both scripts run the program, eagerly or compiled, forward and backward.
_RUN = """
def run(forward, case):
    return backward(
        lambda inputs: forward(*inputs.values(), *case["sizes"]),
        allocate(case),
        WRT,
        case["seed"],
        case.get("tangents", ()),
    )


def bind_of(case):
    def bind(tensors):
        return arguments(*tensors.values(), *case["sizes"])

    return bind


def eager_gradients(case):
    # The eager run, and the [autograd] Finding where the op's formula is
    # missing or sits inside a backend kernel (no gradients to judge then).
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        eager = run(model, case)
    if formula_inside_kernel(op, eager.outputs):
        inside = "its formula runs inside a backend kernel, which torch.compile never runs"
        return eager, Finding("autograd", f"{OP_NAME} has no autograd kernel: {inside}")
    said = [str(w.message) for w in caught if NO_FORMULA in str(w.message)]
    if said or (eager.error is not None and "no autograd formula" in str(eager.error)):
        why = said[0].split(". ")[0] if said else error_text(eager.error)
        return eager, Finding("autograd", f"{OP_NAME} has no autograd formula ({why})")
    return eager, None
"""

_EAGER_MAIN = """
def main():
    case = CASES[0]
    eager, unregistered = eager_gradients(case)
    if unregistered is not None:
        return report([unregistered])
    if eager.error is not None:
        failed = f"the program's forward or backward raised eagerly: {error_text(eager.error)}"
        return report([Finding("crash", failed)])
    expected = gradient_expectation(
        $program, $reference, allocate(case), bind_of(case), WRT, eager.tangents
    )
    found = []
    for name in WRT:
        got, want = eager.grads[name], expected[name]
        label = f"the gradient of buffer {name!r}"
        if (got is None) != (want is None):
            found.append(Finding("outputs", f"{label}: only one of eager and float64 gives it"))
        elif got is not None:
            found += within_ulps(label, got, want, BUDGET, "eager")
    return report(found)
"""

_COMPILED_MAIN = """
def main():
    case = CASES[0]
    eager, unregistered = eager_gradients(case)
    if unregistered is not None and "inside a backend kernel" in unregistered.message:
        return report([unregistered])  # torch.compile differentiates nothing
    if unregistered is not None:
        return report([Finding("harness", f"no verdict: {unregistered.message}")])
    if eager.error is not None:
        return report([Finding("harness", f"no verdict: eager raised: {error_text(eager.error)}")])
    # Inductor keeps what the backward it compiles takes, and the forward
    # what it saved, as the suite compares them.
    compiled_for, saved = [None], []
    inductor = keeping_saved(compiled_for.append) if BACKEND == "inductor" else None
    compiled_model = compile_program(model, inductor)

    def forward(*inputs):
        result = compiled_model(*inputs)
        saved.extend(saved_by(result))  # before the backward frees them
        return result

    compiled = run(forward, case)
    found = [] if compiled_for[-1] is None else saved_layouts(saved, compiled_for[-1], MODE)
    if compiled.error is not None:
        failed = f"the program compiled by {MODE} failed where eager ran: "
        return report([*found, Finding("compiled", failed + error_text(compiled.error))])
    for name in WRT:
        want, got = eager.grads[name], compiled.grads[name]
        label = f"the gradient of buffer {name!r}"
        if (want is None) != (got is None):
            found.append(Finding("outputs", f"{label}: only one of eager and {MODE} gives it"))
        elif want is not None:
            # A drawn program's gradients (SUMMED) are laid out as its backward
            # makes them: torch.autograd.grad promises no layout for them.
            found += metadata(label, want, got, MODE, "eager", not SUMMED)
            if BIT_EXACT:  # compared as raw bits: NaN equals NaN, -0.0 differs from 0.0
                found += bit_exact(label, got, want, MODE, "eager")
    blocking = [f for f in found if f.blocking]
    if (BIT_EXACT and not (SUMMED and blocking)) or any(f.verdict != "values" for f in blocking):
        return report(found)
    # Judged by the spec's gradient budget against the float64 gradients:
    # Inductor may reorder the backward's arithmetic, and a drawn program's
    # gradients are sums it may add up in another order.
    expected = gradient_expectation(
        $program, $reference, allocate(case), bind_of(case), WRT, eager.tangents
    )
    found = [f for f in found if not f.blocking]
    for name in WRT:
        if compiled.grads[name] is not None and expected[name] is not None:
            label = f"the gradient of buffer {name!r}"
            found += within_ulps(label, compiled.grads[name], expected[name], BUDGET, MODE)
    return report(found)
"""


def _fill(spec: Spec, program: str | None, reference: str | None) -> dict[str, str]:
    return {"program": program or "program", "reference": reference or "None"}


def _eager_main(spec: Spec, program: str | None, reference: str | None) -> str:
    text = _RUN.strip("\n") + "\n\n\n" + _EAGER_MAIN.strip("\n")
    return string.Template(text).substitute(_fill(spec, program, reference))


def _compiled_main(spec: Spec, program: str | None, reference: str | None) -> str:
    text = _RUN.strip("\n") + "\n\n\n" + _COMPILED_MAIN.strip("\n")
    return string.Template(text).substitute(_fill(spec, program, reference))


def _gradient_constants(spec: Spec, case: Case) -> list[tuple[str, object, str]]:
    return [
        (
            "WRT",
            differentiated(spec.grads, case),
            "the buffers gradients are taken with respect to",
        ),
        ("BUDGET", spec.gradient_budget, "ULPs allowed for gradients against the float64 ones"),
        ("NO_FORMULA", NO_FORMULA[1], "torch's warning where an op has no autograd formula"),
        ("BIT_EXACT", spec.bit_exact, "the compiled gradients must equal eager's bit for bit"),
        ("SUMMED", case.program is not None, "a drawn program's: sums, judged by the budget"),
    ]


_WHAT = (
    "It runs the spec's program on the Case's buffers, those behind the arguments the\n"
    "spec differentiates made leaves, then torch.autograd.grad of its outputs, each with\n"
    "an upstream gradient laid out as the Case says (transposed, strided, expanded)."
)

EAGER_SCRIPT = Script(
    what=_WHAT + "\nIt judges the gradients against the float64 ones, in ULPs of their dtype.",
    main=_eager_main,
    agreement=lambda spec: (
        f"every gradient is within {spec.gradient_budget} ULP of the float64 gradient"
    ),
    suite_code=lambda spec: [backward, formula_inside_kernel, gradient_expectation, within_ulps],
    constants=_gradient_constants,
    reference=lambda spec: True,
    runs_compiled=True,
    differentiates=True,
)

COMPILED_SCRIPT = Script(
    what=_WHAT + "\nIt does so eagerly and compiled (fullgraph, statically) in the check's Mode,\n"
    "and compares the gradients.",
    main=_compiled_main,
    agreement=lambda spec: (
        "the compiled gradients agree with eager bit for bit (a drawn program's, or within "
        f"{spec.gradient_budget} ULP of the float64 ones), with eager's layout"
        if spec.bit_exact
        else f"the compiled gradients are within {spec.gradient_budget} ULP of the float64 "
        "ones, with eager's layout"
    ),
    suite_code=lambda spec: [
        backward,
        formula_inside_kernel,
        keeping_saved,
        saved_by,
        saved_layouts,
        metadata,
        bit_exact,
        within_ulps,
        gradient_expectation,
    ],
    constants=_gradient_constants,
    reference=lambda spec: True,  # a drawn program's gradients may be judged by the budget
    fake=True,
    runs_compiled=True,
    differentiates=True,
)
