"""The reference check: eager results lie within the spec's ULP budget of its
float64 reference."""

from __future__ import annotations

import string

from torch_conformance.oracles.comparisons.values import within_ulps
from torch_conformance.oracles.core.specification import Spec
from torch_conformance.oracles.core.verdicts import CRASH, OUTPUTS, VALUES
from torch_conformance.oracles.judging.check import Check, of_case
from torch_conformance.oracles.judging.common_findings import check_reference
from torch_conformance.oracles.judging.script_drivers import Script, budget, op_main

_REFERENCE = """\
    # The reference runs on the CPU, whatever device the Case lives on.
    cpu = (b.cpu() for b in before.values())
    expectation = $reference(**arguments(*cpu, *case["sizes"]))
    outputs = outputs or ()
    if len(outputs) != len(expectation.outputs):
        found.append(
            Finding(
                "outputs",
                f"{OP_NAME} returns {len(outputs)} output(s) but the reference "
                f"gives {len(expectation.outputs)}",
            )
        )
    for i, (out, expected) in enumerate(zip(outputs, expectation.outputs)):
        found += within_ulps(f"out[{i}]", out, expected, BUDGET, "eager")
    for name, expected in expectation.writes.items():
        found += within_ulps(f"{name} (written)", args[name], expected, BUDGET, "eager")"""

_NO_REFERENCE = "    # The spec has no reference: the check only asks that the op runs."


def _main(spec: Spec, program: str | None, reference: str | None) -> str:
    if spec.reference is None:
        return op_main(_NO_REFERENCE)
    return op_main(string.Template(_REFERENCE).substitute(reference=reference))


def _agreement(spec: Spec) -> str:
    if spec.reference is None:
        return f"{spec.label} ran (the spec has no reference to judge it against)"
    return (
        f"every output and written argument is within {spec.ulp_budget} ULP "
        "of the float64 reference"
    )


CHECK = Check(
    of_case(check_reference),
    "eager against the float64 reference",
    (VALUES, OUTPUTS, CRASH),
    order=0,
    script=Script(
        what=(
            "It calls the op eagerly and judges its outputs and written arguments against\n"
            "the float64 reference, in ULPs of their dtype."
        ),
        main=_main,
        agreement=_agreement,
        suite_code=lambda spec: [within_ulps] if spec.reference is not None else [],
        constants=lambda spec, case: [budget(spec)],
        reference=lambda spec: spec.reference is not None,
    ),
)
