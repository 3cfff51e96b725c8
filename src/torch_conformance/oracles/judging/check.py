"""A check as data: what the gate runs, and what its report says it compares.

A check module defines ``CHECK``, a :class:`Check` named after the module: its judge,
``judge(spec, case, batch, mode) -> list[Finding]`` (an empty list is a
pass), the Modes it runs in, the Verdicts it may give (named by their
constants in ``oracles.core.verdicts``), how a shrunk failure's report is
finished, and the driver of its standalone repro script.

What the runner asks of every check, a check answers through its fields
and the methods built on them: the strategy of its Hypothesis examples
(``strategy``), the spec it cannot judge on any Case (``unfit``), its
judge's Findings with a tool's mistakes demoted (``judged``), what a batch
shares (``sharing``) and the Mode its script compiles in (``script_mode``).
The runner knows no check by name.
"""

from __future__ import annotations

import contextlib
import dataclasses
import math
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Protocol

from hypothesis.strategies import SearchStrategy

from torch_conformance.oracles.core.buffers import Case
from torch_conformance.oracles.core.findings import ConformanceFailure, Finding
from torch_conformance.oracles.core.signature import BatchSignature
from torch_conformance.oracles.core.specification import Spec
from torch_conformance.oracles.modes.compiled import INDUCTOR, Compiled
from torch_conformance.oracles.modes.eager import EAGER
from torch_conformance.oracles.modes.interpreter import launches
from torch_conformance.oracles.modes.mode import Mode
from torch_conformance.oracles.strategies.batches import derived_batches
from torch_conformance.oracles.strategies.sampling import sample
from torch_conformance.oracles.triage.engine import one_batch
from torch_conformance.oracles.triage.interpreter import not_judgeable

if TYPE_CHECKING:
    from torch_conformance.oracles.judging.script_drivers import Script


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
    # Why it cannot judge a spec in a Mode on any Case, where one fact of the
    # spec decides that (a Finding shown on one Case, not shrunk), or None.
    unfit: Callable[[Spec, Mode], Finding | None] | None = None
    # Why it holds for a spec by construction, so it need not run (None: it runs).
    holds: Callable[[Spec], str | None] | None = None

    def judged(
        self, spec: Spec, case: Case, batch: BatchSignature | None, mode: Mode
    ) -> list[Finding]:
        """The judge's Findings, those that Triton's interpreter (a tool the
        suite runs, not the code under test) explains demoted."""
        with launches() as launched:
            findings = self.judge(spec, case, batch, mode)
        return not_judgeable(findings, case) if launched() else findings

    def sharing(self, batch: BatchSignature | None) -> AbstractContextManager[None]:
        """While the Cases of ``batch`` (None: one Case) are judged: what they share."""
        return one_batch() if batch is not None else contextlib.nullcontext()

    def batching(self, batch_size: int) -> bool:
        return self.batched and batch_size > 1

    def strategy(self, spec: Spec, batch_size: int) -> SearchStrategy[list[Case]]:
        """What one Hypothesis example of it is: a batch of Cases sharing a
        compile, or one Case."""
        if self.batching(batch_size):
            if spec.batches is not None:
                return spec.batches(batch_size)
            return derived_batches(spec.cases, batch_size)
        cases = self.cases(spec) if self.cases is not None else spec.cases
        return cases.map(lambda case: [case])

    def examples_for(self, cases: int, batch_size: int) -> int:
        """Hypothesis examples that judge about ``cases`` Cases."""
        return math.ceil(cases / batch_size) if self.batching(batch_size) else cases

    def one_case(self, spec: Spec) -> Case:
        """One Case it judges for ``spec``: the spec's first example, or one drawn."""
        if self.cases is not None:  # Cases the check draws itself (with a program)
            return sample(self.cases(spec), 1)[0]
        return spec.examples[0] if spec.examples else sample(spec.cases, 1)[0]

    def script_mode(self, mode: Mode) -> Compiled:
        """The Mode its repro script compiles in, where the script compiles:
        a check that runs in no compiled Mode compiles in inductor."""
        return mode if isinstance(mode, Compiled) else INDUCTOR

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
