"""The domain-edges check: how the kernel behaves just outside its declared
domain, one broken rule at a time. It never blocks: the domain is the
kernel's promise."""

from __future__ import annotations

from torch_conformance.oracles.core.buffers import Case
from torch_conformance.oracles.core.findings import Finding, error_text
from torch_conformance.oracles.core.kernel_domain import edge_cases
from torch_conformance.oracles.core.specification import Spec
from torch_conformance.oracles.core.verdicts import DOMAIN_EDGE
from torch_conformance.oracles.judging.check import Check, of_case
from torch_conformance.oracles.judging.common_findings import against_reference
from torch_conformance.oracles.modes.eager import EAGER


def check_domain_edges(spec: Spec, case: Case) -> list[Finding]:
    """Whether the kernel refuses, computes right, or computes silently wrong
    on each Case just outside its domain."""
    if spec.domain is None:
        return []
    found = []
    for rule, edge in edge_cases(spec.domain, case):
        eager = EAGER.run(spec, edge)
        if eager.error is not None:
            outcome = f"refuses {rule}: {error_text(eager.error, 1)}"
        elif spec.reference is None:
            outcome = f"accepts {rule} (no reference to judge its values)"
        else:
            wrong = against_reference(spec, edge, eager)
            outcome = (
                f"accepts {rule} and silently computes wrong values: {wrong[0].message}"
                if wrong
                else f"accepts {rule} and computes the reference's values"
            )
        found.append(Finding(DOMAIN_EDGE, f"{spec.label} {outcome}", False))
    return found


CHECK = Check(
    of_case(check_domain_edges),
    "eager just outside the spec's domain against the float64 reference",
    (DOMAIN_EDGE,),
    order=5,
    applies=lambda spec: spec.domain is not None,
)
