"""The compiled check: the Case's program compiled in a compiled Mode agrees
with it run eagerly.

Alone, a Case compiles statically; in a batch, once for every Case of it,
with dynamic shapes. A disagreement that known compiler faults explain, on
evidence specific to each (``oracles.triage.engine``), is reported without
blocking.
"""

from __future__ import annotations

from torch_conformance.oracles.core.buffers import Case
from torch_conformance.oracles.core.findings import ConformanceFailure, Finding
from torch_conformance.oracles.core.signature import BatchSignature, batch_signature
from torch_conformance.oracles.core.specification import Spec
from torch_conformance.oracles.core.verdicts import (
    CRASH,
    NONDETERMINISTIC,
    OUT_ARGUMENT,
    STAGE,
)
from torch_conformance.oracles.judging.check import Check
from torch_conformance.oracles.judging.common_findings import check_reference, uncompilable
from torch_conformance.oracles.judging.differential import (
    GIVEN,
    CompiledEvidence,
    compare_compiled,
    out_keyword,
)
from torch_conformance.oracles.judging.differential_script import DIFFERENTIAL_SCRIPT
from torch_conformance.oracles.modes.compiled import COMPILED as COMPILED_MODES
from torch_conformance.oracles.modes.compiled import INDUCTOR, Compiled
from torch_conformance.oracles.modes.mode import Mode
from torch_conformance.oracles.triage import faults
from torch_conformance.oracles.triage.engine import Situation, triage
from torch_conformance.oracles.triage.stage import stage_at_fault


def check_compiled(
    spec: Spec, case: Case, batch: BatchSignature | None = None, mode: Mode = INDUCTOR
) -> list[Finding]:
    """The program compiled in ``mode`` agrees with the eager one."""
    assert isinstance(mode, Compiled)
    found = compare_compiled(spec, case, mode, batch)
    if not any(f.verdict == OUT_ARGUMENT for f in found):
        found += out_keyword(spec, case)
    situation = Situation(case, batch is not None, bool(spec.declared_writes), deploy=mode.deploy)
    return triage(found, situation, CompiledEvidence(spec, case, batch, mode), faults.KNOWN_FAULTS)


def _stage(spec: Spec, mode: Mode, failure: ConformanceFailure) -> list[Finding]:
    # For the shrunk Case alone, not while shrinking: it compiles once per stage.
    assert isinstance(mode, Compiled)
    batch = batch_signature(failure.cases) if failure.batched else None
    case = failure.cases[failure.index]
    if any(f.verdict == NONDETERMINISTIC for f in failure.findings):
        return failure.findings  # no compiler was judged: no stage to name
    eager = [f for f in failure.findings if f.verdict == CRASH]
    if not eager and not spec.bit_exact and spec.reference is not None:
        eager = check_reference(spec, case)  # compiled is judged against the reference too

    def compare(stage: Compiled) -> list[Finding]:
        return compare_compiled(spec, case, stage, batch)

    return [*failure.findings, stage_at_fault(spec, mode, compare, eager)]


CHECK = Check(
    check_compiled,
    "the program eagerly and compiled",
    (*GIVEN, STAGE),
    order=3,
    modes=tuple(COMPILED_MODES.values()),
    batched=True,
    finish=_stage,
    script=DIFFERENTIAL_SCRIPT,
    unfit=uncompilable,
)
