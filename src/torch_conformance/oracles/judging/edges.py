"""The edge of what a spec knows: a Case it only infers the op accepts (a
recording's Case that no recorded call shows), which the op refuses."""

from __future__ import annotations

from torch_conformance.oracles.core.buffers import Case
from torch_conformance.oracles.core.findings import Finding, error_text
from torch_conformance.oracles.core.specification import Spec
from torch_conformance.oracles.core.verdicts import RECORDING_EDGE
from torch_conformance.oracles.modes.eager import EAGER
from torch_conformance.oracles.modes.isolated import kills


def refusal(spec: Spec, case: Case) -> Finding | None:
    """A non-blocking ``[recording edge]`` Finding where ``case`` is one the
    spec only infers the op accepts and the op raises on it eagerly: the
    Case is then not judged, and the op is not blamed."""
    if spec.inferred is None or not spec.inferred(case):
        return None
    # Run first where a kernel that dies on it takes no worker with it.
    signal = kills(spec, case)
    if signal is not None:
        how = f"by killing its process ({signal})"
    else:
        error = EAGER.run(spec, case).error
        if error is None:
            return None
        how = error_text(error, 1)
    return Finding(
        RECORDING_EDGE,
        f"{spec.label} refused a Case that no recorded call shows, so it was not "
        f"judged: {how} (if the op should take it, record a call like it, or declare "
        "the tie it breaks with recorded_spec(..., relations=[...]))",
        blocking=False,
    )
