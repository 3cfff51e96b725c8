"""Known-fault triage: upstream compiler bugs the suite found, matched on evidence.

A Finding that a known fault explains stays in the report, as a non-blocking
Finding that names the fault, but only on the torch releases the fault is
known to affect and only when the evidence fits it; anything else stays
blocking. Each fault names the verdicts it produces, the facts of a
Situation it needs (``when``), and a *witness*: another way to run the same
Case that avoids the fault. The
fault fits when the witness shows none of those verdicts. A disagreement is
explained only when fitting faults explain every blocking verdict of it
(two faults may meet in one program).

The faults themselves are data, ``upstream/known_faults.json`` (loaded by
``oracles.triage.faults``). Each has a standalone reproduction in plain
torch beside it, ``upstream/<script>.py``,
ready for an upstream report. The gate (``suites/test_known_faults.py``)
runs it on every release and fails where it disagrees with the entry's
releases, so a fixed release (or a newly affected one) fails until the entry
is brought up to date; the reports record where each fault reproduces.
"""

from __future__ import annotations

import dataclasses
import importlib.metadata
import math
import subprocess
import sys
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

import torch

from oracles.core.case import Case
from oracles.core.findings import Finding
from oracles.core.program import STEPS
from oracles.core.verdicts import (
    COMPILED,
    CRASH,
    FAKE,
    HARNESS,
    KNOWN_COMPILER_FAULT,
    OUT_ARGUMENT,
    OUTPUTS,
)

# Where the standalone reproductions lie.
UPSTREAM = Path(__file__).resolve().parents[2] / "upstream"
# The witnesses: "static" compiles the Case alone, statically; "aot_eager"
# runs it through every stage before Inductor; "no autograd cache" compiles
# it afresh with AOTAutograd's cache off; "pattern" runs nothing, for a fault
# every compiled stage shares, known by the program's pattern alone.
WITNESSES = ("static", "aot_eager", "no autograd cache", "pattern")
# Verdicts that mean a run compared nothing: a witness showing one (that its
# fault does not explain) is no evidence.
NO_COMPARISON = frozenset({HARNESS, COMPILED, CRASH, FAKE, OUTPUTS, OUT_ARGUMENT})


@dataclasses.dataclass(frozen=True)
class Situation:
    """What triage knows of a disagreement before it compiles anything."""

    case: Case
    batched: bool  # compiled with dynamic shapes (for a batch, or a drawn program)
    writes: bool  # the op declares in-place writes (or the program writes)
    kinds: tuple[str, ...] = ()  # the kinds of Step of a drawn program around the op
    written_through: frozenset[str] = frozenset()  # view kinds the program writes through

    def facts(self) -> frozenset[str]:
        """What holds of it, in the words a fault's ``when`` uses (see ``FACTS``)."""
        roles = {STEPS[kind] for kind in self.kinds}
        held = {
            "dynamic": self.batched,
            "writes": self.writes,
            "a -0.0 argument": negative_zero(self.case.args.values()),
            "a read elsewhere": any(kind.reads_elsewhere for kind in roles),
            "a write step": any(kind.role == "write" for kind in roles),
        }
        return frozenset(
            [fact for fact, holds in held.items() if holds]
            + [f"step {kind}" for kind in self.kinds]
            + [f"a write through {kind}" for kind in self.written_through]
        )


# The facts a fault's ``when`` may name: compiled with dynamic shapes; the op
# (or program) writes in place; a plain argument is -0.0; a Step that reads
# its operand at other positions than it writes; a Step that writes in place;
# a Step of a kind (``step <kind>``); a write through a view of a kind.
FACTS = frozenset(
    ["dynamic", "writes", "a -0.0 argument", "a read elsewhere", "a write step"]
    + [f"step {kind}" for kind in STEPS]
    + [f"a write through {kind}" for kind in ("unfold", "as_strided")]
)


def negative_zero(values: Iterable[Any]) -> bool:
    """Some plain value (or an item of a list of them) is the float -0.0."""
    for value in values:
        if isinstance(value, (list, tuple)) and negative_zero(value):
            return True
        if isinstance(value, float) and value == 0 and math.copysign(1, value) < 0:
            return True
    return False


@dataclasses.dataclass(frozen=True)
class KnownFault:
    name: str
    releases: tuple[str, ...]  # version prefixes of its tool it affects, such as "2.13."
    summary: str
    script: str  # its standalone reproduction: upstream/<script>.py
    upstream: tuple[str, ...]  # its upstream issues, as owner/repo#N
    fixes: tuple[str, ...]  # the upstream pull requests that fix it
    explains: frozenset[str]  # the Verdicts it produces
    when: frozenset[str]  # the FACTS of a Situation it needs to arise
    witness: str  # one of WITNESSES: a run that avoids it ("" where it explains nothing)
    tool: str = "torch"  # whose fault: torch's, or Triton's (its interpreter)

    def affects(self, version: str | None = None) -> bool:
        return (version or self.version).startswith(self.releases)

    @property
    def version(self) -> str:
        """The release of its tool in this environment ("" where it is not installed)."""
        if self.tool == "torch":
            return torch.__version__
        try:
            return importlib.metadata.version(self.tool)
        except importlib.metadata.PackageNotFoundError:
            return ""

    def applies(self, situation: Situation) -> bool:
        return self.when <= situation.facts()

    def references(self) -> str:
        words = [f"upstream {u}" for u in self.upstream] + [f"fix PR {f}" for f in self.fixes]
        return "".join(f"{w}; " for w in words)

    @property
    def path(self) -> Path:
        """Its standalone reproduction."""
        return UPSTREAM / f"{self.script}.py"

    @property
    def repro(self) -> str:
        return f"python upstream/{self.script}.py"

    def reproduces(self) -> bool:
        """Its standalone reproduction shows it on this torch release: the
        script runs in a process of its own, as a reader of its report would
        run it, so its compiles and resets touch nothing else."""
        run = subprocess.run([sys.executable, str(self.path)], capture_output=True, text=True)
        if run.returncode not in (0, 1):
            raise RuntimeError(f"{self.repro} failed to run: {run.stderr[-2000:]}")
        return run.returncode == 1

    def explain(self, finding: Finding) -> Finding:
        """``finding``, demoted to a non-blocking report of this fault."""
        return Finding(
            KNOWN_COMPILER_FAULT,
            f"{finding} (explained by the known Inductor fault {self.name!r} of torch "
            f"{torch.__version__}: {self.summary}; {self.references()}repro: {self.repro})",
            blocking=False,
            fault=self.name,
        )


def triage(
    found: list[Finding],
    situation: Situation,
    witness: Callable[[str], list[Finding]],
    faults: Sequence[KnownFault],
) -> list[Finding]:
    """``found`` with every blocking Finding demoted to the known fault that
    explains it, if fitting faults explain them all; else ``found`` as it is.
    ``witness(name)`` runs the Case the named way (it compiles: called only
    when a fault could apply, at most once per witness)."""
    blocking = {f.verdict for f in found if f.blocking}
    runs: dict[str, set[str]] = {}

    def seen(name: str) -> set[str]:
        if name == "pattern":
            return set()
        if name not in runs:
            runs[name] = {f.verdict for f in witness(name) if f.blocking}
        return runs[name]

    def fits(fault: KnownFault) -> bool:
        shown = seen(fault.witness)
        compared = not (shown & NO_COMPARISON) - fault.explains
        return compared and not shown & fault.explains & blocking

    # Faults are tried in order until those that fit explain every blocking
    # verdict: a witness compiles, so none runs once the question is settled.
    fitting: list[KnownFault] = []
    for fault in faults:
        if blocking <= {v for f in fitting for v in f.explains}:
            break
        if (
            fault.affects()
            and blocking & fault.explains
            and fault.applies(situation)
            and fits(fault)
        ):
            fitting.append(fault)
    if not blocking or not blocking <= {v for fault in fitting for v in fault.explains}:
        return found

    def demoted(finding: Finding) -> Finding:
        if not finding.blocking:
            return finding
        return next(f for f in fitting if finding.verdict in f.explains).explain(finding)

    return [demoted(finding) for finding in found]
