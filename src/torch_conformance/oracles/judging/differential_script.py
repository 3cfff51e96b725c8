"""The repro script of a differential run: the Case's program eagerly and
compiled in the failing Mode, once for the batch, compared by the
suite's own ``against_eager``, copied in (the compiled and programs checks)."""

from __future__ import annotations

import string

from torch_conformance.oracles.comparisons.against_eager import against_eager
from torch_conformance.oracles.comparisons.expected import program_expectation
from torch_conformance.oracles.core.buffers import Case
from torch_conformance.oracles.core.specification import Spec
from torch_conformance.oracles.judging.script_drivers import Script, budget

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
$judged
"""

_BIT_EXACT = """\
    return against_eager((want, eager_buffers), (got, buffers), MODE)"""

_WITHIN_ULPS = """\
    def expected():
        def bind(tensors):
            return arguments(*tensors.values(), *case["sizes"])

        return program_expectation($program, $reference, allocate(case), bind)

    return against_eager((want, eager_buffers), (got, buffers), MODE, BUDGET, expected)"""


def _main(spec: Spec, program: str | None, reference: str | None) -> str:
    fill = {"program": program or "program", "reference": reference or "None"}
    judged = _BIT_EXACT if spec.bit_exact else string.Template(_WITHIN_ULPS).substitute(fill)
    return string.Template(_INDUCTOR_MAIN.strip("\n")).substitute(judged=judged)


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
        return [against_eager]
    return [against_eager, program_expectation]


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
