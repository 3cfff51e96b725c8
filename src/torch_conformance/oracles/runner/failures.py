"""Failures told apart: which failures are distinct bugs, which are one bug
seen where less of it shows, and which finishing made alike.

Hypothesis tells bugs apart by exception type, so each kind of failure (its
blocking verdicts and the shapes of its messages, numbers left out) gets a
type of its own; the same bug at another rank or size is not another.
"""

from __future__ import annotations

import functools
import re
import sys
from collections.abc import Iterable, Sequence

from torch_conformance.oracles.core.findings import ConformanceFailure, Finding

if sys.version_info < (3, 11):
    from exceptiongroup import BaseExceptionGroup

# Numbers, and runs of them (a shape, strides, a value): what differs between
# two Cases of one bug.
_NUMBER = r"-?\d[\d.]*(?:e[+-]?\d+)?"
_NUMBERS = re.compile(rf"{_NUMBER}(?:,\s*{_NUMBER})*")


@functools.cache
def failure_class(shapes: frozenset[str]) -> type[ConformanceFailure]:
    """One exception type per kind of failure: Hypothesis tells bugs apart by type."""
    key = " | ".join(sorted(shapes))
    return type(
        f"ConformanceFailure[{key}]", (ConformanceFailure,), {"kind": key, "shapes": shapes}
    )


def kind(findings: Sequence[Finding]) -> frozenset[str]:
    """What makes two failures distinct bugs: their blocking verdicts and the
    shapes of their messages (numbers left out), not the sizes or ranks of
    the Case they were found on."""
    return frozenset(_NUMBERS.sub("#", str(f)) for f in findings if f.blocking)


def subsumed(shapes: frozenset[str], others: Iterable[frozenset[str]]) -> bool:
    """A failure whose every Finding another failure also shows (by shape) is
    that bug seen on a Case where less of it shows: an input whose strides
    already agree, a dimension of size 1 whose stride no one compares. It
    names nothing new, so it is not reported apart."""
    return any(shapes <= other for other in others)


def distinct(
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
        wider = [k for k in kept if subsumed(failure.shapes, [k.shapes])]
        if wider:
            wider[0].partial.append(failure)
        else:
            kept.append(failure)
    return [f for f in failures if any(f is k for k in kept)]


def once(failures: list[ConformanceFailure]) -> list[ConformanceFailure]:
    """Failures that finishing made alike (two programs cut down to one) listed once."""
    seen: set[frozenset[str]] = set()
    kept = []
    for failure in failures:
        said = frozenset(_NUMBERS.sub("#", str(f)) for f in failure.findings)
        if said not in seen:
            seen.add(said)
            kept.append(failure)
    return kept


def raised(error: BaseException) -> list[ConformanceFailure]:
    """The conformance failures a search raised (Hypothesis groups distinct
    ones); anything else it raised is raised again."""
    if isinstance(error, ConformanceFailure):
        return [error]
    if not isinstance(error, BaseExceptionGroup):
        return []
    found = [f for e in error.exceptions for f in raised(e)]
    if len(found) < len(_leaves(error)):
        raise error  # something other than a conformance failure went wrong
    return found


def _leaves(error: BaseException) -> list[BaseException]:
    if isinstance(error, BaseExceptionGroup):
        return [leaf for e in error.exceptions for leaf in _leaves(e)]
    return [error]
