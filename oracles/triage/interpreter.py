"""Findings that Triton's interpreter, not the kernel or Inductor, explains.

Where a Case's run launched kernels in Triton's interpreter and the
interpreter computes one of the Case's floating dtypes wrongly
(``oracles.modes.interpreter.faults``), its value Findings judge the
interpreter, not the code under test: they are reported, without blocking,
as not judgeable here, naming the interpreter's fault. Findings of metadata,
aliasing or writes do not depend on its arithmetic and keep blocking.
"""

from __future__ import annotations

from oracles.core.case import Case
from oracles.core.findings import Finding
from oracles.core.verdicts import NOT_JUDGEABLE, VALUES
from oracles.modes.interpreter import faults

# The interpreter's own reproduction.
REPRO = "python upstream/triton_interpreter_bf16.py"


def not_judgeable(findings: list[Finding], case: Case) -> list[Finding]:
    """``findings`` of a run that launched interpreted kernels, its value
    Findings demoted where the interpreter is wrong in a dtype of ``case``."""
    dtypes = {buffer.dtype for buffer in case.buffers.values() if buffer.dtype.is_floating_point}
    wrong = [fault for fault in faults() if fault.dtype in dtypes]
    if not wrong:
        return findings
    why = "; ".join(str(fault) for fault in wrong[:3]) + (" ..." if len(wrong) > 3 else "")
    return [
        Finding(
            NOT_JUDGEABLE,
            f"[{f.verdict}] {f.message} (not judgeable here: the Case ran kernels in Triton's "
            f"interpreter, which computes its dtypes wrongly: {why}; repro: {REPRO}; judge it "
            "on a GPU, where Triton compiles the kernels)",
            blocking=False,
        )
        if f.blocking and f.verdict == VALUES
        else f
        for f in findings
    ]
