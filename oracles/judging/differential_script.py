"""The repro script of a differential run: the Case's program eagerly and
compiled in the failing Mode, once for the batch, compared as
``differential.compare_compiled`` compares them (the compiled and programs
checks)."""

from __future__ import annotations

import string

from oracles.comparisons.expected import program_expectation
from oracles.comparisons.outputs import aliasing, metadata, structure
from oracles.comparisons.values import bit_exact, within_ulps
from oracles.core.case import Case
from oracles.core.spec import Spec
from oracles.judging.script_drivers import Script, budget

# inductor: the program eagerly and compiled, once for the batch.
_INDUCTOR_MAIN = """
def main():
    compiled = compile_program(model)
    findings = {}
    for number, case in enumerate(CASES, 1):
        heading = f"Case {number} of {len(CASES)}: " if len(CASES) > 1 else ""
        findings[heading] = run_case(compiled, case)
    return report(findings)


def run_case(compiled, case):
    buffers = allocate(case)
    eager_buffers = {name: b.clone() for name, b in buffers.items()}
    try:
        want = flatten_outputs(model(*eager_buffers.values(), *case["sizes"]))
    except Exception as error:
        return [Finding("crash", f"the program raised in eager mode: {error_text(error)}")]
    for name, dim in STATIC_DIMS:
        torch._dynamo.mark_static(buffers[name], dim)
    try:
        got = flatten_outputs(compiled(*buffers.values(), *case["sizes"]))
    except Exception as error:
        failed = f"the program compiled by {MODE} failed where eager ran: " + error_text(error)
        return [Finding("compiled", failed)]
    found = structure(want, got, MODE, "eager")
    if found:
        return found
    pairs = [
        (i, f"out[{i}]", w, g)
        for i, (w, g) in enumerate(zip(want or (), got or ()))
        if isinstance(w, torch.Tensor)
    ]
    for _, label, w, g in pairs:
        found += metadata(label, w, g, MODE, "eager")
        found += aliasing(label, w, eager_buffers, g, buffers, MODE, "eager")
$values
    return found
"""

_BIT_EXACT = """\
    # Compared as raw bits: NaN equals NaN, -0.0 differs from 0.0.
    for _, label, w, g in pairs:
        found += bit_exact(label, g, w, MODE, "eager")
    for name, w in eager_buffers.items():
        label = f"buffer {name!r} after the call"
        found += bit_exact(label, buffers[name], w, MODE, "eager")"""

_WITHIN_ULPS = """\
    # The spec is judged by a ULP budget against the float64 program, not bit
    # for bit: Inductor may reorder its arithmetic.
    def bind(tensors):
        return arguments(*tensors.values(), *case["sizes"])

    outputs, expected_buffers = program_expectation($program, $reference, allocate(case), bind)
    for i, label, _, g in pairs:
        found += within_ulps(label, g, outputs[i], BUDGET, MODE)
    for name, expected in expected_buffers.items():
        label = f"buffer {name!r} after the call"
        found += within_ulps(label, buffers[name], expected, BUDGET, MODE)"""


def _main(spec: Spec, program: str | None, reference: str | None) -> str:
    fill = {"program": program or "program", "reference": reference or "None"}
    values = _BIT_EXACT if spec.bit_exact else string.Template(_WITHIN_ULPS).substitute(fill)
    return string.Template(_INDUCTOR_MAIN.strip("\n")).substitute(values=values)


def _agreement(spec: Spec) -> str:
    if spec.bit_exact:
        return "the compiled program agrees with eager bit for bit"
    return f"the compiled program is within {spec.ulp_budget} ULP of the float64 program"


def _budget(spec: Spec, case: Case) -> list[tuple[str, object, str]]:
    if spec.bit_exact:
        return []
    return [budget(spec)]


def _suite_code(spec: Spec) -> list[object]:
    if spec.bit_exact:
        return [structure, metadata, aliasing, bit_exact]
    return [structure, metadata, aliasing, within_ulps, program_expectation]


# The script: the program eagerly and compiled, once for the batch.
DIFFERENTIAL_SCRIPT = Script(
    what=(
        "It runs the spec's program eagerly and compiled (fullgraph) in the check's Mode\n"
        "and compares the outputs and every buffer after the call."
    ),
    main=_main,
    agreement=_agreement,
    suite_code=_suite_code,
    constants=_budget,
    reference=lambda spec: spec.reference is not None and not spec.bit_exact,
    fake=True,
    runs_compiled=True,
)
