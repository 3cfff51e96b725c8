"""Findings: what a comparison reports, and how an error reads in one."""

from __future__ import annotations

import dataclasses
import re
import traceback
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from torch_conformance.oracles.core.verdicts import NEVER_BLOCKING


@dataclasses.dataclass(frozen=True)
class Finding:
    """One disagreement a comparison found; ``verdict`` names its Verdict
    (a constant of ``oracles.core.verdicts``).

    A Finding that is not ``blocking`` is reported but does not fail the
    check: it states a difference no compiled program can observe, or one
    that the known compiler fault named by ``fault`` explains.
    """

    verdict: str
    message: str
    blocking: bool = True
    fault: str | None = None
    # The exception a failed run raised, for triage (not part of the report).
    error: BaseException | None = dataclasses.field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        # One table says which Verdict never blocks: whichever check or lint gives it.
        if self.blocking and self.verdict in NEVER_BLOCKING:
            object.__setattr__(self, "blocking", False)

    def __str__(self) -> str:
        return f"[{self.verdict}] {self.message}"


class ConformanceFailure(AssertionError):
    """A check found disagreements on one Case; the message lists every Finding.

    ``cases`` are the Cases its Hypothesis example ran (a batch, or one),
    ``index`` the failing one; ``rerun``, ``script`` (or ``script_problem``)
    say how to reproduce it, once written.
    """

    # What makes it a distinct bug; Hypothesis tells bugs apart by exception type,
    # so each kind is a subclass that sets it.
    kind: str = ""
    shapes: frozenset[str] = frozenset()  # its blocking Findings, numbers left out

    def __init__(
        self,
        check: str,
        op: str,
        case: str,
        findings: list[Finding],
        cases: Sequence[Any] = (),
        index: int = 0,
        batched: bool = False,
    ):
        self.findings = findings
        self.case = case
        self.cases = tuple(cases)
        self.index = index
        self.batched = batched
        self.rerun: str | None = None
        self.script: Path | None = None
        self.script_problem: str | None = None
        # Failures whose every Finding this one shows too, on other Cases.
        self.partial: list[ConformanceFailure] = []
        self.heading = f"{check} check of {op} failed on {case}"
        super().__init__(self.heading)

    def __str__(self) -> str:
        return "\n".join([self.heading, *(f"  {finding}" for finding in self.findings)])

    def report(self) -> str:
        """The Findings, the Case and how to reproduce it."""
        lines = [str(self)]
        if self.rerun is not None:
            lines.append(f"  rerun this Case: {self.rerun}")
        if self.script is not None and self.script_problem is not None:
            lines.append(
                f"  repro script, not standalone (it exits 2: {self.script_problem}): "
                f"python {self.script}"
            )
        elif self.script is not None:
            lines.append(f"  standalone repro (plain torch): python {self.script}")
        elif self.script_problem is not None:
            lines.append(f"  no standalone repro could be written: {self.script_problem}")
        if self.partial:
            own = getattr(self.cases[self.index], "label", "") if self.cases else ""
            seen = dict.fromkeys(_partially(p, own) for p in self.partial)
            lines.append(f"  also fails, with only some of these Findings, on: {'; '.join(seen)}")
        return "\n".join(lines)


def _partially(failure: ConformanceFailure, own: str) -> str:
    """A subsumed failure in a few words: its Case's label and its verdicts;
    the Case's arguments where its label is ``own``, the failing Case's (two
    explicit examples may share one label)."""
    case = failure.cases[failure.index] if failure.cases else None
    label = getattr(case, "label", "")
    if not label or label == own:
        label = failure.case[:70] + "..." * (len(failure.case) > 70)
    verdicts = ", ".join(sorted({f.verdict for f in failure.findings if f.blocking}))
    return f"{label} ({verdicts})"


class CheckFailure(AssertionError):
    """A check failed: every distinct failure Hypothesis found, each shrunk."""

    def __init__(self, failures: Sequence[ConformanceFailure]):
        self.failures = list(failures)
        self.findings = [f for failure in self.failures for f in failure.findings]
        super().__init__(self.report())

    def report(self) -> str:
        reports = [failure.report() for failure in self.failures]
        if len(reports) == 1:
            return reports[0]
        heading = f"{len(reports)} distinct failures (other verdicts or other messages):"
        return "\n".join([heading, *(f"({n}) {r}" for n, r in enumerate(reports, 1))])


# A C++ compiler's diagnostic, after the path of the file it names (a
# string: repro scripts copy this module's code, and a Pattern is no literal).
_COMPILER_ERROR = r"([^/\s]+:\d+:\d+: error: .*)"


def error_text(error: BaseException, lines: int = 3) -> str:
    """The error's first lines; for Dynamo's, the user code it was tracing;
    for a failed C++ compile, the compiler's first error, not its command
    line; for an assertion with no message, where it was raised."""
    text = [line.strip() for line in str(error).splitlines() if line.strip()]
    marker = "from user code:"
    if "Command:" in text:
        diagnostics = [found[1] for line in text if (found := re.search(_COMPILER_ERROR, line))]
        text = text[: text.index("Command:")] + diagnostics[:1]
    elif marker in text:
        frames = [line for line in text[text.index(marker) :] if line.startswith("File ")]
        text = text[: text.index(marker)][:lines] + [f"tracing {frames[-1]}"] * bool(frames)
    else:
        text = text[:lines]
    where = _raised_at(error)
    return f"{type(error).__name__}: " + " / ".join(text[:1] + where + text[1:])


def error_chain(error: BaseException) -> list[BaseException]:
    """``error`` and the exceptions it was raised from, innermost last."""
    chain: list[BaseException] = []
    current: BaseException | None = error
    while current is not None and all(current is not seen for seen in chain):
        chain.append(current)
        current = current.__cause__ or current.__context__
    return chain


def _raised_at(error: BaseException) -> list[str]:
    """Where the innermost error of ``error``'s chain was raised, if it says
    nothing itself (a bare ``assert`` in the compiler): its last frame."""
    inner = error_chain(error)[-1]
    if str(inner).strip():
        return []
    frames = traceback.extract_tb(inner.__traceback__ or error.__traceback__)
    if not frames:
        return []
    last = frames[-1]
    path = last.filename.rpartition("site-packages/")[2]
    name = type(inner).__name__
    return [f"{name} with no message, raised at {path}:{last.lineno} in {last.name}"]
