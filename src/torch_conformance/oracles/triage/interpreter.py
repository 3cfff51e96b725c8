"""Findings that Triton's interpreter, not the kernel or Inductor, explains.

Where a Case's run launched kernels in Triton's interpreter and the
interpreter computes one of the Case's floating dtypes wrongly
(``oracles.modes.interpreter.faults``), its value Findings judge the
interpreter, not the code under test: they are reported, without blocking,
as not judgeable here, naming the interpreter's fault. Findings of metadata,
aliasing or writes do not depend on its arithmetic and keep blocking. A
compiled run that raised exactly what the self-check's kernel raises (the
interpreter refuses a mask Inductor generates) is not judgeable either; any
other error keeps blocking.
"""

from __future__ import annotations

from torch_conformance.oracles.core.buffers import Case
from torch_conformance.oracles.core.findings import Finding
from torch_conformance.oracles.core.verdicts import COMPILED, NOT_JUDGEABLE, VALUES
from torch_conformance.oracles.modes.interpreter import InterpreterFault, faults, raised_by

_JUDGE_ELSEWHERE = "judge it on a GPU, where Triton compiles the kernels"


def _demoted(finding: Finding, why: str, repro: str) -> Finding:
    return Finding(
        NOT_JUDGEABLE,
        f"[{finding.verdict}] {finding.message} (not judgeable here: {why}; repro: {repro}; "
        f"{_JUDGE_ELSEWHERE})",
        blocking=False,
    )


def _refused(finding: Finding) -> InterpreterFault | None:
    """The interpreter's refusal that a failed compiled run raised, if any."""
    if finding.verdict != COMPILED or finding.error is None:
        return None
    return next((f for f in faults() if f.dtype is None and raised_by(f, finding.error)), None)


def not_judgeable(findings: list[Finding], case: Case) -> list[Finding]:
    """``findings`` of a run that launched interpreted kernels, its value
    Findings demoted where the interpreter is wrong in a dtype of ``case``,
    and a compiled run's failure where the interpreter raised what it
    refuses."""
    dtypes = {buffer.dtype for buffer in case.buffers.values() if buffer.dtype.is_floating_point}
    wrong = [fault for fault in faults() if fault.dtype in dtypes]
    why = "; ".join(str(fault) for fault in wrong[:3]) + (" ..." if len(wrong) > 3 else "")
    judged = []
    for finding in findings:
        refusal = _refused(finding) if finding.blocking else None
        if refusal is not None:
            finding = _demoted(
                finding,
                "Triton's interpreter raised this, as its self-check kernel does for "
                f"{refusal.operation}",
                refusal.repro,
            )
        elif wrong and finding.blocking and finding.verdict == VALUES:
            finding = _demoted(
                finding,
                "the Case ran kernels in Triton's interpreter, which computes its dtypes "
                f"wrongly: {why}",
                wrong[0].repro,
            )
        judged.append(finding)
    return judged
