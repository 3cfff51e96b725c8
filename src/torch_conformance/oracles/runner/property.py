"""Run a check as a Hypothesis property over a spec's Cases.

A failing Case raises a :class:`~torch_conformance.oracles.core.findings.ConformanceFailure` listing
every Finding, which Hypothesis shrinks to a minimal Case. Failures with other
blocking verdicts or other messages (numbers aside) are distinct bugs to
Hypothesis, each shrunk once and reported on its own; the same bug at
another rank or size is not another. Shrinking stops after ``SHRINK_SECONDS``, since
every step of a compiled check compiles. The spec's explicit examples run
first, and a failing one is reported as written (Hypothesis never shrinks
one).

A batched check's (the compiled check's) Hypothesis example is a batch of
Cases sharing one compiled program (dynamic in what varies across the batch), drawn by the
spec's ``batches`` or derived from its ``cases``; the profile's number of
Cases is reached in fewer, larger examples: that amortizes the compiles.

Each failure can write a standalone repro script and the Cases it ran, which
``replay`` runs again without a search.

The runner knows checks only through ``Check``: what a check draws, how it
judges and what it cannot judge are the check's (``oracles.judging.check``);
how failures are told apart is ``failures``, what a run did ``tally``.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from hypothesis import (
    event,
    example,
    given,
    note,
    reject,
    seed,
    settings,
)
from hypothesis.control import currently_in_test_context

from torch_conformance.oracles.checks import CHECKS, Check
from torch_conformance.oracles.core.buffers import Case, CaseError
from torch_conformance.oracles.core.devices import DEFAULT_DEVICE
from torch_conformance.oracles.core.findings import CheckFailure, ConformanceFailure, Finding
from torch_conformance.oracles.core.signature import BatchSignature, batch_signature
from torch_conformance.oracles.core.specification import (
    HoldsByConstruction,
    Spec,
    SpecError,
    Unavailable,
)
from torch_conformance.oracles.core.verdicts import NOT_JUDGEABLE, RECORDING_EDGE
from torch_conformance.oracles.judging.edges import refusal
from torch_conformance.oracles.modes.mode import Mode
from torch_conformance.oracles.repro.script import incomplete, write_repro
from torch_conformance.oracles.runner.budgets import SHRINK_SECONDS, check_settings, shrink_budget
from torch_conformance.oracles.runner.draws import same_draws
from torch_conformance.oracles.runner.failures import (
    distinct,
    failure_class,
    kind,
    once,
    raised,
    subsumed,
)
from torch_conformance.oracles.runner.replay import Replay, ReproOptions, shown
from torch_conformance.oracles.runner.tally import Tally, tallied

if sys.version_info < (3, 11):
    from exceptiongroup import BaseExceptionGroup

# The Verdicts the runner itself may give, whatever the check.
RUNNER_VERDICTS = (NOT_JUDGEABLE, RECORDING_EDGE)
# Cases per compiled program in the compiled check.
BATCH_SIZE = 10
# Searches for distinct kinds of failure, each passing the kinds found before.
SEARCHES = 3


def run_property(
    spec: Spec,
    check: str | Check,
    base: settings | None = None,
    mode: str | Mode | None = None,
    on_finding: Callable[[Finding, str], None] | None = None,
    batch_size: int = BATCH_SIZE,
    repro: ReproOptions | None = None,
    replay: Replay | None = None,
    shrink_seconds: float = SHRINK_SECONDS,
    running: Path | None = None,
    tally: Tally | None = None,
    examples: bool = True,
    device: str = DEFAULT_DEVICE,
) -> None:
    """Run ``check`` (a check's name, or a Check: one of them changed) on the
    spec's examples, then on generated Cases (or on
    the Cases of ``replay`` alone), in the check's Mode called ``mode`` (by
    default its first), or in the Mode ``mode`` itself (an injected compiler
    fault, which no check lists); raise CheckFailure on blocking Findings, and
    Unavailable when the Mode cannot run the spec here, or the spec or the
    Mode cannot run on ``device``.

    ``on_finding(finding, case)`` sees every non-blocking Finding, and the
    blocking ones of the Cases the property finally fails on. ``batch_size``
    1 compiles every Case on its own. ``running``: a file that holds, while
    each Case runs, a Replay of it, so a process killed by a kernel leaves
    word of the Case that killed it. ``tally`` counts the Cases judged.
    ``examples`` False leaves out the spec's explicit examples. ``device``:
    where every Case lives (``oracles.core.devices.parse_device`` spells it).

    The steps: a spec the check cannot judge at all fails at once
    (``_unfit``); else each search (``_searched``) draws Cases and judges
    them (``_Property``) until one passes; the distinct failures are
    finished and their repros written (``_finished``).
    """
    the_check = check if isinstance(check, Check) else CHECKS[check]
    the_mode = mode if isinstance(mode, Mode) else the_check.mode(mode)
    # A Mode off its device says so before what it needs there (which
    # assumes its device); a spec's own reasons come last, as its prepare's did.
    why = (
        the_mode.unavailable_on(device) or the_mode.unavailable(spec) or spec.unavailable_on(device)
    )
    if why is not None:
        raise Unavailable(why)
    run = _Property(spec, the_check, the_mode, batch_size, on_finding, running, tally, device)
    with spec.installed(), tallied(tally), same_draws():
        held = the_check.holds(spec) if the_check.holds is not None else None
        if held is not None:
            raise HoldsByConstruction(held)
        unfit = _unfit(run, replay)
        failures = [] if unfit is None else [unfit]
        # Hypothesis looks for other bugs only briefly after the first: each
        # further search passes the kinds already found, to find the others.
        searches = 0 if unfit else 1 if replay is not None else SEARCHES
        for search in range(searches):
            budget = shrink_seconds if search == 0 else shrink_seconds / 4
            new = _searched(run, replay, base, search, budget, examples)
            failures += new
            run.found.update(failure.shapes for failure in new)
            if not new:
                break
        failures = distinct(failures, run.partial)
        if failures:
            raise CheckFailure(_finished(run, failures, unfit, replay, repro)) from None


@dataclasses.dataclass
class _Property:
    """One check of one spec in one Mode, as a Hypothesis property: what it
    draws, how it judges a drawn example, and the kinds of failure found so far."""

    spec: Spec
    check: Check
    mode: Mode
    batch_size: int
    on_finding: Callable[[Finding, str], None] | None
    running: Path | None
    tally: Tally | None
    device: str
    found: set[frozenset[str]] = dataclasses.field(default_factory=set)  # kinds found, now passed
    partial: list[ConformanceFailure] = dataclasses.field(default_factory=list)  # their subsets

    @functools.cached_property
    def names(self) -> set[str] | None:
        """The arguments the op's schema takes (None: no schema to ask)."""
        overload = self.spec.overload
        return None if overload is None else {a.name for a in overload._schema.arguments}

    def __call__(self, cases: list[Case]) -> None:
        """The property: one drawn example (a batch of Cases, or one) judged,
        on the run's device (a spec's strategies draw Cases of the CPU)."""
        cases = [case.on(self.device) for case in cases]
        for case in cases:
            self.draw(case)
        cases = [case for case in cases if not self.at_the_edge(case)]
        if not cases:
            reject()
        batched = self.check.batching(self.batch_size) and len(cases) > 1
        batch = batch_signature(cases) if batched else None
        with self.check.sharing(batch):
            for index in range(len(cases)):
                self.judge(cases, index, batch)

    def draw(self, case: Case) -> None:
        """A drawn Case the spec's op takes, and inside its declared domain."""
        unknown = sorted(set(case.args) - self.names) if self.names is not None else []
        if unknown:
            raise SpecError(
                f"spec {self.spec.name!r}: its Cases pass {unknown}, which {self.spec.label} "
                f"does not take; its schema is `{getattr(self.spec.overload, '_schema', '?')}`"
            )
        if self.spec.domain is not None and self.spec.domain.violations(case):
            reject()  # outside the kernel's declared domain

    def at_the_edge(self, case: Case) -> bool:
        """A Case the spec only infers the op takes, which the op refuses: not judged."""
        edge = refusal(self.spec, case)
        if edge is None:
            return False
        if self.tally is not None:
            self.tally.edges += 1
        if currently_in_test_context():
            event(f"non-blocking finding: {edge.verdict}")
        if self.on_finding is not None:
            self.on_finding(edge, case.describe())
        return True

    def judge(self, cases: list[Case], index: int, batch: BatchSignature | None) -> None:
        """The Case at ``index`` judged; a failure of a new kind is raised."""
        case = cases[index]
        if self.running is not None:
            Replay(
                self.spec.name, self.check.name, tuple(cases), index, batch is not None,
                self.mode.name,
            ).save(self.running)  # fmt: skip
        description = case.describe()
        if batch is not None:
            description += (
                f" (Case {index + 1} of a batch of {len(cases)} {self.mode.batch_program})"
            )
        findings = self.check.judged(self.spec, case, batch, self.mode)
        if self.tally is not None:
            self.tally.judged(case, findings)
        undeclared = {f.verdict for f in findings} - {*self.check.verdicts, *RUNNER_VERDICTS}
        if undeclared:  # the suite's own mistake: its reports list each check's verdicts
            raise RuntimeError(f"the {self.check.name} check gave undeclared verdicts {undeclared}")
        self.tell(findings, description)
        if any(finding.blocking for finding in findings):
            self.failed(self.failure(findings, description, cases, index, batch))

    def tell(self, findings: list[Finding], description: str) -> None:
        """Non-blocking Findings, to Hypothesis's statistics and ``on_finding``."""
        for finding in findings:
            if finding.blocking:
                continue
            if currently_in_test_context():  # not so in a replay
                event(f"non-blocking finding: {finding.verdict}")
                note(str(finding))
            if self.on_finding is not None:
                self.on_finding(finding, description)

    def failure(
        self,
        findings: list[Finding],
        description: str,
        cases: list[Case] | tuple[Case, ...],
        index: int,
        batch: BatchSignature | None,
    ) -> ConformanceFailure:
        return failure_class(kind(findings))(
            self.check.title(self.mode),
            self.spec.label,
            description,
            findings,
            cases,
            index,
            bool(batch),
        )

    def failed(self, failure: ConformanceFailure) -> None:
        """A failure of a kind not yet found is raised; one a found kind
        subsumes passes now, but is named beside the failure that subsumes it."""
        if not subsumed(failure.shapes, self.found):
            raise failure
        if not subsumed(failure.shapes, (f.shapes for f in self.partial)):
            self.partial.append(failure)


def _unfit(run: _Property, replay: Replay | None) -> ConformanceFailure | None:
    """One failure, on one Case and not shrunk, where the check cannot judge
    the spec in its Mode on any Case (``Check.unfit``)."""
    finding = run.check.unfit(run.spec, run.mode) if run.check.unfit is not None else None
    if finding is None:
        return None
    if replay is not None:
        cases, index = replay.cases, replay.index
    else:
        cases, index = (run.check.one_case(run.spec),), 0
    cases = tuple(case.on(run.device) for case in cases)
    return run.failure([finding], cases[index].describe(), cases, index, None)


def _searched(
    run: _Property,
    replay: Replay | None,
    base: settings | None,
    search: int,
    shrink_seconds: float,
    examples: bool,
) -> list[ConformanceFailure]:
    """The failures one search finds (none: it passed)."""
    try:
        if replay is not None:
            run(list(replay.cases))
        else:
            _search(run, base, search, shrink_seconds, examples)
    except CaseError as error:
        raise SpecError(f"spec {run.spec.name!r}: {error}") from None
    except (ConformanceFailure, BaseExceptionGroup) as error:
        return raised(error)
    return []


def _search(
    run: _Property, base: settings | None, search: int, shrink_seconds: float, explicit: bool
) -> None:
    """Hypothesis searches the check's strategy, the explicit Cases first."""
    spec, check, mode = run.spec, run.check, run.mode
    base = check_settings(base)
    if search:  # the example database keeps the first search's failures
        base = settings(base, database=None)
    base = settings(base, max_examples=check.examples_for(base.max_examples, run.batch_size))

    def prop(cases: list[Case]) -> None:
        run(cases)

    words = check.words(mode, "_")
    prop.__name__ = prop.__qualname__ = f"{words}_check_of_{spec.name.replace('.', '_')}"
    test: Any = given(cases=check.strategy(spec, run.batch_size))(prop)
    for case in reversed(check.explicit(spec) if explicit else ()):
        test = example(cases=[case])(test)
    # One example database entry per spec, check and Mode, not one for all; a
    # derandomized run draws by them too, not by this module's source.
    digest = f"{spec.name}/{check.name}/{mode.name}".encode()
    if base.derandomize:
        test = seed(int.from_bytes(hashlib.sha256(digest + bytes([search])).digest()[:8], "big"))(
            test
        )
    test = base(test)
    test.hypothesis.inner_test._hypothesis_internal_add_digest = digest
    with shrink_budget(shrink_seconds):
        test()


def _finished(
    run: _Property,
    failures: list[ConformanceFailure],
    unfit: ConformanceFailure | None,
    replay: Replay | None,
    repro: ReproOptions | None,
) -> list[ConformanceFailure]:
    """The distinct failures finished, told once each, their repros written."""
    check = run.check
    # Hypothesis never shrinks an explicit example: it is reported as the
    # spec wrote it (often the very Case an upstream report names), with
    # the way to a shrunk generated Case instead of a second search here.
    for failure in failures:
        written = [case.on(run.device) for case in check.explicit(run.spec)]
        explicit = failure is not unfit and failure.cases[failure.index] in written
        if replay is None and explicit:
            failure.heading += (
                " (an explicit example of the spec, not shrunk: rerun with "
                "--skip-examples for a shrunk generated Case that fails alike)"
            )
        # The unfit failure says all there is: no stage, no program to cut.
        if check.finish is not None and failure is not unfit:
            failure.findings = check.finish(run.spec, run.mode, failure)
    failures = once(failures)
    for number, failure in enumerate(failures, 1):
        if repro is not None:
            _write_repro(run, failure, repro, number if len(failures) > 1 else 0)
        for finding in failure.findings:
            if finding.blocking and run.on_finding is not None:
                run.on_finding(finding, failure.case)
    return failures


def _write_repro(
    run: _Property, failure: ConformanceFailure, repro: ReproOptions, number: int
) -> None:
    """The failure's Cases saved to replay, and its standalone script where the check has one."""
    spec, check, mode = run.spec, run.check, run.mode
    stem = f"{spec.name}-{check.words(mode, '-')}" + (f"-{number}" if number else "")
    replay = Replay(spec.name, check.name, failure.cases, failure.index, failure.batched, mode.name)
    cases_file = replay.save(repro.folder / f"{stem}.cases")
    failure.rerun = f"{repro.rerun} --replay={shown(cases_file)}"
    if check.script is None:
        return
    case = failure.cases[failure.index]
    other = check.script_check(failure.findings) if check.script_check is not None else None
    try:
        written = write_repro(
            spec,
            check if other is None else CHECKS[other],
            failure.cases,
            failure.index,
            failure.batched,
            repro.folder / f"{stem}.py",
            check.script_mode(mode),
            case.program is not None and case.program.dynamic,
        )
    except Exception as error:  # a repro that cannot be written must not hide the failure
        failure.script_problem = f"{type(error).__name__}: {error}"
        return
    failure.script = shown(written)
    failure.script_problem = incomplete(written)
