"""What a property run did, for its report: the Cases judged, what they
compiled, and each Case's Findings as a report compares them across runs."""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import time
from collections.abc import Iterator, Sequence

from torch_conformance.oracles.core.buffers import Case
from torch_conformance.oracles.core.findings import Finding
from torch_conformance.oracles.core.meter import spent
from torch_conformance.oracles.core.verdicts import NOT_JUDGEABLE


@dataclasses.dataclass
class Tally:
    """What a property run did, for its report."""

    cases: int = 0  # Cases judged, shrinking's included
    not_judgeable: int = 0  # of them, Cases whose values a tool the suite runs got wrong
    edges: int = 0  # Cases not judged: the op refused them, and the spec only infers it takes them
    compiles: int = 0  # Dynamo graphs compiled (triage's and the stage's included)
    signatures: int = 0  # programs compiled: one per Signature (and sizes, alone)
    seconds: float = 0.0
    # Per Case judged (by ``case_key``): its Findings, as "verdict" (blocking),
    # "verdict?" (not blocking) or "verdict?fault"; the last judgement of a Case wins.
    per_case: dict[str, list[str]] = dataclasses.field(default_factory=dict)

    def judged(self, case: Case, findings: Sequence[Finding]) -> None:
        self.per_case[case_key(case)] = tokens(findings)
        self.cases += 1
        self.not_judgeable += any(f.verdict == NOT_JUDGEABLE for f in findings)


def case_key(case: Case) -> str:
    """A Case's name in a report: its one-line description and a digest of
    everything it holds (seed, buffers, program)."""
    digest = hashlib.sha256(repr(case).encode()).hexdigest()[:12]
    return f"{digest} {case.describe()}"


def tokens(findings: Sequence[Finding]) -> list[str]:
    """Findings as a report compares them across runs."""

    def token(finding: Finding) -> str:
        if finding.blocking:
            return finding.verdict
        return f"{finding.verdict}?{finding.fault or ''}"

    return sorted(map(token, findings))


@contextlib.contextmanager
def tallied(tally: Tally | None) -> Iterator[None]:
    """Add what the block compiles, and how long it takes, to ``tally``."""
    compiles, signatures = spent()
    began = time.monotonic()
    try:
        yield
    finally:
        if tally is not None:
            now_compiles, now_signatures = spent()
            tally.compiles += now_compiles - compiles
            tally.signatures += now_signatures - signatures
            tally.seconds += time.monotonic() - began
