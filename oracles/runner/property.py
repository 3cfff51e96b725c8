"""Run a check as a Hypothesis property over a spec's Cases.

A failing Case raises a :class:`~oracles.core.findings.ConformanceFailure` listing
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
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import hashlib
import math
import re
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path

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

from oracles.checks import CHECKS, Check
from oracles.core.case import Case, CaseError
from oracles.core.findings import CheckFailure, ConformanceFailure, Finding
from oracles.core.schema import functionalization_problem
from oracles.core.signature import BatchSignature, batch_signature
from oracles.core.spec import Spec, SpecError, Unavailable
from oracles.core.verdicts import COMPILED, NOT_JUDGEABLE, RECORDING_EDGE
from oracles.modes.cache import spent
from oracles.modes.compiled import INDUCTOR, Compiled
from oracles.modes.interpreter import launches
from oracles.modes.mode import Mode
from oracles.repro.script import write_repro
from oracles.runner.budgets import SHRINK_SECONDS, check_settings, shrink_budget
from oracles.runner.draws import same_draws
from oracles.runner.edges import refusal
from oracles.runner.replay import Replay, ReproOptions, shown
from oracles.strategies.batches import derived_batches
from oracles.strategies.sampling import sample
from oracles.triage.engine import one_batch
from oracles.triage.interpreter import not_judgeable

if sys.version_info < (3, 11):
    from exceptiongroup import BaseExceptionGroup

# The Verdicts the runner itself may give, whatever the check.
RUNNER_VERDICTS = (NOT_JUDGEABLE, RECORDING_EDGE)
# Cases per compiled program in the compiled check.
BATCH_SIZE = 10
# Searches for distinct kinds of failure, each passing the kinds found before.
SEARCHES = 3


@functools.cache
def _failure_class(shapes: frozenset[str]) -> type[ConformanceFailure]:
    """One exception type per kind of failure: Hypothesis tells bugs apart by type."""
    key = " | ".join(sorted(shapes))
    return type(
        f"ConformanceFailure[{key}]", (ConformanceFailure,), {"kind": key, "shapes": shapes}
    )


# Numbers, and runs of them (a shape, strides, a value): what differs between
# two Cases of one bug.
_NUMBER = r"-?\d[\d.]*(?:e[+-]?\d+)?"
_NUMBERS = re.compile(rf"{_NUMBER}(?:,\s*{_NUMBER})*")


def _kind(findings: Sequence[Finding]) -> frozenset[str]:
    """What makes two failures distinct bugs: their blocking verdicts and the
    shapes of their messages (numbers left out), not the sizes or ranks of
    the Case they were found on."""
    return frozenset(_NUMBERS.sub("#", str(f)) for f in findings if f.blocking)


def _subsumed(shapes: frozenset[str], others: Iterable[frozenset[str]]) -> bool:
    """A failure whose every Finding another failure also shows (by shape) is
    that bug seen on a Case where less of it shows: an input whose strides
    already agree, a dimension of size 1 whose stride no one compares. It
    names nothing new, so it is not reported apart."""
    return any(shapes <= other for other in others)


def _distinct(
    failures: list[ConformanceFailure], partial: Sequence[ConformanceFailure] = ()
) -> list[ConformanceFailure]:
    """The failures no other subsumes, in the order found (one search may find
    a bug on a Case where less of it shows and on one where more does). Each
    subsumed one, and each of ``partial`` (subsumed ones a later search met
    and passed), goes to the ``partial`` of the first failure that subsumes
    it, which names its Case in a line: it may yet be a second bug that the
    first hides."""
    kept: list[ConformanceFailure] = []
    for failure in [*sorted(failures, key=lambda f: -len(f.shapes)), *partial]:
        wider = [k for k in kept if _subsumed(failure.shapes, [k.shapes])]
        if wider:
            wider[0].partial.append(failure)
        else:
            kept.append(failure)
    return [f for f in failures if any(f is k for k in kept)]


def _once(failures: list[ConformanceFailure]) -> list[ConformanceFailure]:
    """Failures that finishing made alike (two programs cut down to one) listed once."""
    seen: set[frozenset[str]] = set()
    kept = []
    for failure in failures:
        said = frozenset(_NUMBERS.sub("#", str(f)) for f in failure.findings)
        if said not in seen:
            seen.add(said)
            kept.append(failure)
    return kept


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
) -> None:
    """Run ``check`` (a check's name, or a Check: one of them changed) on the
    spec's examples, then on generated Cases (or on
    the Cases of ``replay`` alone), in the check's Mode called ``mode`` (by
    default its first), or in the Mode ``mode`` itself (an injected compiler
    fault, which no check lists); raise CheckFailure on blocking Findings, and
    Unavailable when the Mode cannot run the spec here.

    ``on_finding(finding, case)`` sees every non-blocking Finding, and the
    blocking ones of the Cases the property finally fails on. ``batch_size``
    1 compiles every Case on its own. ``running``: a file that holds, while
    each Case runs, a Replay of it, so a process killed by a kernel leaves
    word of the Case that killed it. ``tally`` counts the Cases judged.
    ``examples`` False leaves out the spec's explicit examples.
    """
    the_check = check if isinstance(check, Check) else CHECKS[check]
    check = the_check.name
    the_mode = mode if isinstance(mode, Mode) else the_check.mode(mode)
    why = the_mode.unavailable(spec)
    if why is not None:
        raise Unavailable(why)
    batched = the_check.batched and batch_size > 1
    with spec.installed(), _tallied(tally), same_draws():
        names = _argument_names(spec)
        found: set[frozenset[str]] = set()  # kinds of failure already found, which pass now
        partial: list[ConformanceFailure] = []  # their subsets met since, unshrunk

        def prop(cases: list[Case]) -> None:
            for case in cases:
                _check_arguments(spec, case, names)
                if spec.domain is not None and spec.domain.violations(case):
                    reject()  # outside the kernel's declared domain
            cases = [case for case in cases if not _at_the_edge(case)]
            if not cases:
                reject()
            batch = batch_signature(cases) if batched and len(cases) > 1 else None
            with one_batch() if batch is not None else contextlib.nullcontext():
                judge(cases, batch)

        def _at_the_edge(case: Case) -> bool:
            edge = refusal(spec, case)
            if edge is None:
                return False
            if tally is not None:
                tally.edges += 1
            if currently_in_test_context():
                event(f"non-blocking finding: {edge.verdict}")
            if on_finding is not None:
                on_finding(edge, case.describe())
            return True

        def judge(cases: list[Case], batch: BatchSignature | None) -> None:
            for index, case in enumerate(cases):
                if running is not None:
                    Replay(
                        spec.name, check, tuple(cases), index, batch is not None, the_mode.name
                    ).save(running)
                description = case.describe()
                if batch is not None:
                    description += (
                        f" (Case {index + 1} of a batch of {len(cases)} {the_mode.batch_program})"
                    )
                with launches() as launched:
                    findings = the_check.judge(spec, case, batch, the_mode)
                if launched():
                    findings = not_judgeable(findings, case)
                if tally is not None:
                    tally.per_case[case_key(case)] = tokens(findings)
                    tally.cases += 1
                    tally.not_judgeable += any(f.verdict == NOT_JUDGEABLE for f in findings)
                undeclared = {f.verdict for f in findings} - {*the_check.verdicts, *RUNNER_VERDICTS}
                if undeclared:  # the suite's own mistake: its reports list each check's verdicts
                    raise RuntimeError(f"the {check} check gave undeclared verdicts {undeclared}")
                for finding in findings:
                    if not finding.blocking:
                        if currently_in_test_context():  # not so in a replay
                            event(f"non-blocking finding: {finding.verdict}")
                            note(str(finding))
                        if on_finding is not None:
                            on_finding(finding, description)
                if any(finding.blocking for finding in findings):
                    kind = _kind(findings)
                    failure = _failure_class(kind)(
                        the_check.title(the_mode),
                        spec.label,
                        description,
                        findings,
                        cases,
                        index,
                        bool(batch),
                    )
                    if not _subsumed(kind, found):
                        raise failure
                    # Passed now, but named beside the failure that subsumes it.
                    if not _subsumed(kind, (f.shapes for f in partial)):
                        partial.append(failure)

        def searched(search: int, shrink: float) -> list[ConformanceFailure]:
            """The failures one search finds (none: it passed)."""
            try:
                if replay is not None:
                    prop(list(replay.cases))
                else:
                    _search(
                        spec, the_check, the_mode, prop, base, batch_size, shrink, search, examples
                    )
            except CaseError as error:
                raise SpecError(f"spec {spec.name!r}: {error}") from None
            except (ConformanceFailure, BaseExceptionGroup) as error:
                return _failures(error)
            return []

        failures: list[ConformanceFailure] = []
        unfit = _uncompilable(spec, the_check, the_mode, replay)
        if unfit is not None:
            failures.append(unfit)
        # Hypothesis looks for other bugs only briefly after the first: each
        # further search passes the kinds already found, to find the others.
        for search in range(0 if unfit else 1 if replay is not None else SEARCHES):
            new = searched(search, shrink_seconds if search == 0 else shrink_seconds / 4)
            failures += new
            found.update(failure.shapes for failure in new)
            if not new:
                break
        failures = _distinct(failures, partial)
        # Hypothesis never shrinks an explicit example: it is reported as the
        # spec wrote it (often the very Case an upstream report names), with
        # the way to a shrunk generated Case instead of a second search here.
        for failure in failures:
            if replay is None and failure.cases[failure.index] in the_check.explicit(spec):
                failure.heading += (
                    " (an explicit example of the spec, not shrunk: rerun with "
                    "--skip-examples for a shrunk generated Case that fails alike)"
                )
        if failures:
            for failure in failures:
                # The schema's failure says all there is: no stage, no program to cut.
                if the_check.finish is not None and failure is not unfit:
                    failure.findings = the_check.finish(spec, the_mode, failure)
            failures = _once(failures)
            for number, failure in enumerate(failures, 1):
                if repro is not None:
                    number = number if len(failures) > 1 else 0
                    _write_repro(spec, the_check, the_mode, failure, repro, number)
                for finding in failure.findings:
                    if finding.blocking and on_finding is not None:
                        on_finding(finding, failure.case)
            raise CheckFailure(failures) from None


def _uncompilable(
    spec: Spec, check: Check, mode: Mode, replay: Replay | None
) -> ConformanceFailure | None:
    """One failure, on one Case and not shrunk, where torch.compile cannot
    functionalize the op's schema: every Case fails alike, for one fact about
    the schema, which the search would report at every rank after minutes."""
    overload = spec.overload
    if not isinstance(mode, Compiled) or COMPILED not in check.verdicts or overload is None:
        return None
    problem = functionalization_problem(overload)
    if problem is None:
        return None
    if replay is not None:
        cases, index = replay.cases, replay.index
    elif check.cases is not None:  # Cases the check draws itself (with a program)
        cases, index = tuple(sample(check.cases(spec), 1)), 0
    else:
        cases, index = spec.examples or tuple(sample(spec.cases, 1)), 0
    finding = Finding(
        COMPILED,
        f"torch.compile cannot compile {spec.label} on any Case, for its schema "
        f"`{overload._schema}`: {problem} (the registry lint's [uncompilable]; one Case "
        "shown, not shrunk: every Case fails alike)",
    )
    return _failure_class(frozenset({f"uncompilable {spec.label}"}))(
        check.title(mode), spec.label, cases[index].describe(), [finding], cases, index, False
    )


@contextlib.contextmanager
def _tallied(tally: Tally | None) -> Iterator[None]:
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


def _search(spec, check, mode, prop, base, batch_size, shrink_seconds, search, explicit) -> None:
    base = check_settings(base)
    batched = check.batched and batch_size > 1
    if search:  # the example database keeps the first search's failures
        base = settings(base, database=None)
    if batched:
        strategy = (
            spec.batches(batch_size)
            if spec.batches is not None
            else derived_batches(spec.cases, batch_size)
        )
        base = settings(base, max_examples=math.ceil(base.max_examples / batch_size))
    elif check.cases is not None:
        strategy = check.cases(spec).map(lambda case: [case])
    else:
        strategy = spec.cases.map(lambda case: [case])
    words = check.words(mode, "_")
    prop.__name__ = prop.__qualname__ = f"{words}_check_of_{spec.name.replace('.', '_')}"
    test = given(cases=strategy)(prop)
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


def _failures(error: BaseException) -> list[ConformanceFailure]:
    if isinstance(error, ConformanceFailure):
        return [error]
    if not isinstance(error, BaseExceptionGroup):
        return []
    found = [f for e in error.exceptions for f in _failures(e)]
    if len(found) < len(_leaves(error)):
        raise error  # something other than a conformance failure went wrong
    return found


def _leaves(error: BaseException) -> list[BaseException]:
    if isinstance(error, BaseExceptionGroup):
        return [leaf for e in error.exceptions for leaf in _leaves(e)]
    return [error]


def _write_repro(
    spec: Spec,
    check: Check,
    mode: Mode,
    failure: ConformanceFailure,
    repro: ReproOptions,
    number: int,
) -> None:
    stem = f"{spec.name}-{check.words(mode, '-')}" + (f"-{number}" if number else "")
    replay = Replay(spec.name, check.name, failure.cases, failure.index, failure.batched, mode.name)
    cases_file = replay.save(repro.folder / f"{stem}.cases")
    failure.rerun = f"{repro.rerun} --replay={shown(cases_file)}"
    if check.script is None:
        return
    case = failure.cases[failure.index]
    other = check.script_check(failure.findings) if check.script_check is not None else None
    try:
        failure.script = shown(
            write_repro(
                spec,
                check if other is None else CHECKS[other],
                failure.cases,
                failure.index,
                failure.batched,
                repro.folder / f"{stem}.py",
                mode if isinstance(mode, Compiled) else INDUCTOR,
                case.program is not None and case.program.dynamic,
            )
        )
    except Exception as error:  # a repro that cannot be written must not hide the failure
        failure.script_problem = f"{type(error).__name__}: {error}"


def _argument_names(spec: Spec) -> set[str] | None:
    overload = spec.overload
    return None if overload is None else {a.name for a in overload._schema.arguments}


def _check_arguments(spec: Spec, case: Case, names: set[str] | None) -> None:
    unknown = sorted(set(case.args) - names) if names is not None else []
    if unknown:
        raise SpecError(
            f"spec {spec.name!r}: its Cases pass {unknown}, which {spec.label} does not "
            f"take; its schema is `{getattr(spec.overload, '_schema', '?')}`"
        )
