"""Known-fault triage: upstream compiler bugs the suite found, matched on
evidence specific to each.

A Finding that a known fault explains stays in the report, as a non-blocking
Finding that names the fault, but only on the releases the fault is known to
affect, only where the Situation holds the facts it needs (``when``), and
only on evidence that the divergence comes from that fault, of one of two
kinds (each entry says which):

- ``culprit``: throwing each switch of its kind in turn
  (``oracles.triage.switches``: one Inductor pass or subsystem off, or
  AOTAutograd's cache), each switch the fault names (its ``culprits``)
  makes the program agree with eager, and no other does (but those it
  names in ``also``, parts of the same mechanism that some of its triggers
  go through). The others are first thrown all at once, in one compile: a
  program that still disagrees with every one of them off needs none of
  them. Only where it agrees then is each thrown alone, to tell whether one
  of them undoes the fault by itself;
- ``prediction``: the compiled program computes what the fault's predictor
  says it computes (``oracles.triage.predictions``), bit for bit, or fails
  with the error it predicts.

A ``supported_by`` witness (the Case compiled statically, or by
``aot_eager``) must agree with eager too, but is never evidence alone:
"another stage agrees" holds for every Inductor bug and for every wrong fake
that only Inductor trusts. A disagreement is explained only when fitting
faults explain every blocking verdict of it (two faults may meet in one
program).

In a batch (``one_batch``), the ``static`` witness stands for the batch's
program: it compiles a Case alone, once per Case, so it runs once, on the
first Case of the batch that needs it, and its answer holds for the others.
What it supports is "the program this batch compiled dynamically agrees with
eager when compiled statically"; each Case still needs its own evidence (the
prediction of its own wrong answer, bit for bit). A witness that disagrees
leaves every Case of the batch blocking.

The faults themselves are data, ``upstream/known_faults.json`` (loaded by
``oracles.triage.faults``). Each has a standalone reproduction in plain
torch beside it, ``upstream/<script>.py``, ready for an upstream report. The
nightly (``suites/test_known_faults.py``) runs it on every release, and the
suite's own tests on theirs, and fails
where it disagrees with the entry's releases, so a fixed release (or a newly
affected one) fails until the entry is brought up to date; the reports
record where each fault reproduces.
"""

from __future__ import annotations

import contextlib
import contextvars
import dataclasses
import functools
import importlib.metadata
import math
import subprocess
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any, Protocol

import torch

from torch_conformance.oracles.core.buffers import Case
from torch_conformance.oracles.core.findings import Finding
from torch_conformance.oracles.core.program import STEPS
from torch_conformance.oracles.core.specification import Spec
from torch_conformance.oracles.core.verdicts import (
    COMPILED,
    CRASH,
    FAKE,
    HARNESS,
    KNOWN_COMPILER_FAULT,
    OUT_ARGUMENT,
    OUTPUTS,
)
from torch_conformance.oracles.modes.compiled import Compiled
from torch_conformance.oracles.modes.deployment import VIAS, Deployment
from torch_conformance.oracles.triage.predictions import PREDICTORS, Prediction
from torch_conformance.oracles.triage.switches import SWITCHES, Switch, together

# Where the standalone reproductions lie.
UPSTREAM = Path(__file__).resolve().parents[2] / "upstream"
# The kinds of evidence a fault is matched on.
CULPRIT = "culprit"
PREDICTION = "prediction"
EVIDENCE = (CULPRIT, PREDICTION)
# The supporting witnesses: "static" compiles the Case alone, statically;
# "aot_eager" runs it through every stage before Inductor.
WITNESSES = ("static", "aot_eager")
# The witnesses that compile a Case alone: one per batch stands for all its Cases.
PER_PROGRAM = frozenset({"static"})
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
    deploy: Deployment | None = None  # how a deployment Mode ran it (``Compiled.deploy``)

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
            + ([f"deployed by {self.deploy.via}"] if self.deploy else [])
        )


# The facts a fault's ``when`` may name: compiled with dynamic shapes; the op
# (or program) writes in place; a plain argument is -0.0; a Step that reads
# its operand at other positions than it writes; a Step that writes in place;
# a Step of a kind (``step <kind>``); a write through a view of a kind; run
# by a deployment Mode (``deployed by export``, ``deployed by aoti``).
FACTS = frozenset(
    ["dynamic", "writes", "a -0.0 argument", "a read elsewhere", "a write step"]
    + [f"step {kind}" for kind in STEPS]
    + [f"a write through {kind}" for kind in ("unfold", "as_strided")]
    + [f"deployed by {via}" for via in VIAS]
)


def negative_zero(values: Iterable[Any]) -> bool:
    """Some plain value (or an item of a list of them) is the float -0.0."""
    for value in values:
        if isinstance(value, (list, tuple)) and negative_zero(value):
            return True
        if isinstance(value, float) and value == 0 and math.copysign(1, value) < 0:
            return True
    return False


# Runs the script at argv[1] as __main__; an exception it leaves uncaught
# exits 3, where Python's own exit status (1) would read as "reproduces".
_AS_MAIN = """
import runpy, sys, traceback
path = sys.argv[1]
sys.argv = sys.argv[1:]
try:
    runpy.run_path(path, run_name="__main__")
except SystemExit:
    raise
except BaseException:
    traceback.print_exc()
    sys.exit(3)
"""


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
    evidence: str = ""  # CULPRIT or PREDICTION ("" where it explains nothing)
    culprits: tuple[str, ...] = ()  # SWITCHES names, for CULPRIT evidence
    also: tuple[str, ...] = ()  # switches that may undo it too, as its trigger decides
    predicts: str = ""  # a PREDICTORS name, for PREDICTION evidence
    supported_by: str = ""  # one of WITNESSES: a run that avoids it, or ""
    tool: str = "torch"  # whose fault: torch's, or Triton's (its interpreter)
    # Verdicts it produces only alongside one of ``explains`` in the same Case
    # (a write after an aliased result shows in its values): never alone.
    consequences: frozenset[str] = frozenset()
    # Where its script, its torch.compile replaced by a deployment
    # (``upstream/deployed.py``: "export" or "aoti"), reproduces it: version
    # prefixes per deployment, as ``releases`` are for torch.compile.
    deployed: tuple[tuple[str, tuple[str, ...]], ...] = ()

    @property
    def explained(self) -> frozenset[str]:
        """Every Verdict it may explain where it fits."""
        return self.explains | self.consequences

    def affects(self, version: str | None = None, deployed: str = "") -> bool:
        """It reproduces on this release (or ``version``), under torch.compile
        or the deployment ``deployed`` names."""
        return (version or self.version).startswith(self.releases_under(deployed))

    def releases_under(self, deployed: str = "") -> tuple[str, ...]:
        """The releases it affects under torch.compile, or under ``deployed``."""
        return dict(self.deployed).get(deployed, ()) if deployed else self.releases

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

    def repro_under(self, deployed: str = "") -> str:
        """The command that reproduces it (under the deployment ``deployed``)."""
        if not deployed:
            return self.repro
        return f"python upstream/deployed.py {deployed} upstream/{self.script}.py"

    def reproduces(self, deployed: str = "") -> bool:
        """Its standalone reproduction shows it on this torch release (its
        torch.compile replaced by the deployment ``deployed`` names, by
        ``upstream/deployed.py``): the script runs in a process of its own,
        as a reader of its report would run it, so its compiles and resets
        touch nothing else. Python exits 1 from an uncaught exception too:
        that is a script that failed to run (a release that refuses its
        program), never a reproduction."""
        command = (
            [str(UPSTREAM / "deployed.py"), deployed, str(self.path)]
            if deployed
            else ["-c", _AS_MAIN, str(self.path)]
        )
        run = subprocess.run([sys.executable, *command], capture_output=True, text=True)
        if run.returncode not in (0, 1):
            raise RuntimeError(f"{self.repro_under(deployed)} failed to run: {run.stderr[-2000:]}")
        return run.returncode == 1

    def shown_by(self) -> str:
        """The evidence that matched it, in words."""
        if self.evidence == CULPRIT:
            offs = " and ".join(SWITCHES[name].what for name in self.culprits)
            return f"with {offs} off the program agrees with eager, and with no other switch"
        if self.explains == {COMPILED}:  # a failed compile: its prediction is an error
            return f"the compile fails with its predicted error ({self.predicts})"
        return f"the compiled program computes its predicted answer ({self.predicts})"

    def explain(self, finding: Finding, shown: str | None = None) -> Finding:
        """``finding``, demoted to a non-blocking report of this fault
        (``shown``: its evidence in words, where not ``shown_by``'s)."""
        return Finding(
            KNOWN_COMPILER_FAULT,
            f"{finding} (explained by the known Inductor fault {self.name!r} of torch "
            f"{torch.__version__}: {self.summary}; evidence: {shown or self.shown_by()}; "
            f"{self.references()}repro: {self.repro})",
            blocking=False,
            fault=self.name,
        )


class Evidence(Protocol):
    """How triage runs a Case other ways; each run compiles, so triage asks
    for one only when a fault could apply, at most once per question."""

    @property
    def spec(self) -> Spec: ...

    @property
    def mode(self) -> Compiled: ...

    def witness(self, name: str) -> list[Finding]:
        """The Case compared in one of the WITNESSES runs."""
        ...

    def switched(self, switch: Switch) -> list[Finding]:
        """The Case compiled with ``switch`` thrown, compared with eager."""
        ...

    def predicted(self, other: Case, outputs: bool) -> list[Finding]:
        """The Case compiled, compared with ``other`` run eagerly (its outputs
        too, or its buffers alone)."""
        ...


# The per-program witnesses' answers (blocking verdicts) in the batch being judged.
_batch_witnesses: contextvars.ContextVar[dict[tuple[str, str], set[str]] | None] = (
    contextvars.ContextVar("batch_witnesses", default=None)
)


@contextlib.contextmanager
def one_batch() -> Iterator[None]:
    """While it lasts, triage judges the Cases of one batch, which share one
    compiled program: a PER_PROGRAM witness runs once for all of them."""
    token = _batch_witnesses.set({})
    try:
        yield
    finally:
        _batch_witnesses.reset(token)


def triage(
    found: list[Finding],
    situation: Situation,
    evidence: Evidence,
    faults: Sequence[KnownFault],
) -> list[Finding]:
    """``found`` with every blocking Finding demoted to the known fault that
    explains it, if fitting faults explain them all, on the evidence each
    names; else ``found`` as it is."""
    return _Triage(found, situation, evidence).demoted(faults)


class _Triage:
    """One disagreement judged against the known faults: the runs asked of
    its evidence so far, and the faults found to fit."""

    def __init__(self, found: list[Finding], situation: Situation, evidence: Evidence) -> None:
        self.found = found
        self.situation = situation
        self.evidence = evidence
        self.blocking = {f.verdict for f in found if f.blocking}
        self.runs: dict[tuple[str, str], set[str]] = {}
        self.shared = _batch_witnesses.get() if situation.batched else None
        # What each fault is asked to explain: its blocking verdicts that no
        # fault already fitting explains (that fault's own evidence covers them).
        self.asked: dict[str, frozenset[str]] = {}
        self.fitting: list[KnownFault] = []

    def demoted(self, faults: Sequence[KnownFault]) -> list[Finding]:
        """The Findings, demoted where fitting faults explain every blocking one."""
        # Faults are tried in order until those that fit explain every blocking
        # verdict: a witness compiles, so none runs once the question is settled.
        # Each is judged on what is left to explain; one that did not fit is
        # tried again once another has fitted (its runs are remembered, so again
        # is free), since the verdicts that one explains no longer count against it.
        # The faults that could explain the most of it go first: where two fit,
        # the one whose evidence covers the whole disagreement is named for all of it.
        candidates = sorted(
            (f for f in faults if f.affects() and f.applies(self.situation)),
            key=lambda f: -len(self.blocking & f.explains),
        )
        progress = True
        while progress and self.blocking and not self.settled():
            progress = False
            for fault in candidates:
                if fault in self.fitting or self.settled():
                    continue
                if not self.blocking & fault.explains - self.explained():
                    continue  # nothing of its own left: its consequences never stand alone
                self.asked[fault.name] = frozenset(
                    self.blocking & fault.explained - self.explained()
                )
                if self.fits(fault):
                    self.fitting.append(fault)
                    progress = True
        if not self.blocking or not self.settled():
            return self.found
        return [self.demote(finding) for finding in self.found]

    def explained(self) -> set[str]:
        return {v for f in self.fitting for v in f.explained}

    def settled(self) -> bool:
        return self.blocking <= self.explained()

    def demote(self, finding: Finding) -> Finding:
        if not finding.blocking:
            return finding
        return next(f for f in self.fitting if finding.verdict in f.explained).explain(finding)

    def fits(self, fault: KnownFault) -> bool:
        # Both must hold; the cheaper question first. A prediction reruns the
        # program already compiled, a witness compiles once, and a culprit
        # compiles once per switch of its kind.
        if fault.evidence == CULPRIT:
            return self.supported(fault) and self.culprit(fault)
        return self.predicted(fault) and self.supported(fault)

    def seen(self, how: str, name: str, run: Callable[[], list[Finding]]) -> set[str]:
        """The blocking verdicts of a run, run once per question (once per
        batch for a PER_PROGRAM witness)."""
        per_program = how == "witness" and name in PER_PROGRAM
        answers = self.shared if self.shared is not None and per_program else self.runs
        if (how, name) not in answers:
            answers[how, name] = {f.verdict for f in run() if f.blocking}
        return answers[how, name]

    def compared(self, fault: KnownFault, shown: set[str]) -> bool:
        """The run compared something: it showed no verdict of a run that
        compared nothing, but those the fault itself explains."""
        return not (shown & NO_COMPARISON) - fault.explained

    def agrees(self, fault: KnownFault, shown: set[str]) -> bool:
        """A run that compared, and showed none of what the fault is asked to explain."""
        return self.compared(fault, shown) and not shown & self.asked[fault.name]

    def thrown(self, switch: Switch) -> set[str]:
        return self.seen("switch", switch.name, lambda: self.evidence.switched(switch))

    def culprit(self, fault: KnownFault) -> bool:
        mode = self.evidence.mode
        named = [SWITCHES[name] for name in fault.culprits]
        if not named or not all(
            s.available(mode) and self.agrees(fault, self.thrown(s)) for s in named
        ):
            return False
        kinds = {s.kind for s in named}
        others = [
            s
            for s in SWITCHES.values()
            if s.kind in kinds
            and s.name not in (*fault.culprits, *fault.also)
            and not s.coarse
            and s.available(mode)
        ]
        groups = [[s for s in others if s.kind == kind] for kind in sorted(kinds)]
        if all(self.still_shown(fault, together(group)) for group in groups if group):
            return True
        return not any(self.agrees(fault, self.thrown(s)) for s in others)

    def still_shown(self, fault: KnownFault, switch: Switch) -> bool:
        """With ``switch`` thrown, the program compares and still shows what
        the fault explains."""
        shown = self.thrown(switch)
        return self.compared(fault, shown) and bool(shown & self.asked[fault.name])

    def predicted(self, fault: KnownFault) -> bool:
        predictions = PREDICTORS[fault.predicts](self.evidence.spec, self.situation.case)
        return any(self.matches(fault, prediction) for prediction in predictions)

    def matches(self, fault: KnownFault, prediction: Prediction) -> bool:
        asked = self.asked[fault.name]
        if prediction.error is not None:
            errors = [f for f in self.found if f.blocking and f.verdict in asked]
            return bool(errors) and all(
                f.error is not None and prediction.error(f.error) for f in errors
            )
        assert prediction.case is not None
        run = self.evidence.predicted(prediction.case, prediction.outputs)
        shown = {f.verdict for f in run if f.blocking}
        return not (shown & NO_COMPARISON) and not shown & asked

    def supported(self, fault: KnownFault) -> bool:
        if not fault.supported_by:
            return True
        run = functools.partial(self.evidence.witness, fault.supported_by)
        return self.agrees(fault, self.seen("witness", fault.supported_by, run))
