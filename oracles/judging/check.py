"""A check as data: what the gate runs, and what its report says it compares.

A check module defines ``CHECK``, a :class:`Check` named after the module: its judge,
``judge(spec, case, batch, mode) -> list[Finding]`` (an empty list is a
pass), the Modes it runs in, the Verdicts it may give (named by their
constants in ``oracles.core.verdicts``), how a shrunk failure's report is
finished, and the driver of its standalone repro script.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Protocol

from hypothesis.strategies import SearchStrategy

from oracles.core.case import Case
from oracles.core.findings import ConformanceFailure, Finding
from oracles.core.signature import BatchSignature
from oracles.core.spec import Spec
from oracles.modes.eager import EAGER
from oracles.modes.mode import Mode

if TYPE_CHECKING:
    from oracles.judging.script_drivers import Script


class Judge(Protocol):
    def __call__(
        self, spec: Spec, case: Case, batch: BatchSignature | None, mode: Mode
    ) -> list[Finding]: ...


class Finish(Protocol):
    """The Findings of a shrunk failure, refined (it may run the Case again)."""

    def __call__(self, spec: Spec, mode: Mode, failure: ConformanceFailure) -> list[Finding]: ...


def of_case(judge: Callable[[Spec, Case], list[Finding]]) -> Judge:
    """The Judge of a check that needs only the Case: one Mode, no batch."""

    def judged(spec: Spec, case: Case, batch: BatchSignature | None, mode: Mode) -> list[Finding]:
        return judge(spec, case)

    return judged


def _always(spec: Spec) -> bool:
    return True


@dataclasses.dataclass(frozen=True)
class Check:
    """A check; its ``name`` is its module's (``oracles.checks`` sets it)."""

    judge: Judge
    compares: str  # what it compares, in words
    verdicts: tuple[str, ...]  # the Verdicts its Findings carry
    order: int  # where it comes in a run: the cheap checks first
    name: str = ""
    modes: tuple[Mode, ...] = (EAGER,)  # the Modes it runs in, one test each (the first by default)
    batched: bool = False  # judges batches of Cases that share a compile
    applies: Callable[[Spec], bool] = _always
    finish: Finish | None = None
    # The strategy of Cases it draws for a spec (default: the spec's own Cases,
    # after its examples).
    cases: Callable[[Spec], SearchStrategy[Case]] | None = None
    # The explicit Cases it runs first (default: the spec's examples, where it
    # draws the spec's own Cases; none where it draws its own).
    examples: Callable[[Spec], tuple[Case, ...]] | None = None
    # How its standalone repro script runs the failing Case (None: none is written).
    script: Script | None = None
    # The check whose script reproduces a failure's Findings where another's
    # does than its own (None: its own).
    script_check: Callable[[list[Finding]], str | None] | None = None

    def explicit(self, spec: Spec) -> tuple[Case, ...]:
        """The explicit Cases the check runs for ``spec`` before generated ones."""
        if self.examples is not None:
            return self.examples(spec)
        return spec.examples if self.cases is None else ()

    def mode(self, name: str | None = None) -> Mode:
        """The Mode called ``name`` (default: the check's first)."""
        if name is None:
            return self.modes[0]
        for mode in self.modes:
            if mode.name == name:
                return mode
        known = ", ".join(mode.name for mode in self.modes)
        raise KeyError(f"the {self.name} check has no mode {name!r}; its modes are {known}")

    def title(self, mode: Mode) -> str:
        """The check's words in a failure: ``compiled (inductor_triton)``."""
        return self.name if len(self.modes) == 1 else f"{self.name} ({mode.name})"

    def words(self, mode: Mode, separator: str) -> str:
        """The check and, where it runs in several, the Mode: in file and test names."""
        return self.name if len(self.modes) == 1 else f"{self.name}{separator}{mode.name}"


def sorted_checks(checks: Sequence[Check]) -> dict[str, Check]:
    return {check.name: check for check in sorted(checks, key=lambda c: (c.order, c.name))}
