"""Known compiler faults: upstream bugs the suite found, matched on evidence.

A Finding that a known fault explains stays in the report, as a non-blocking
Finding that names the fault, but only on the torch releases the fault is
known to affect and only when the evidence fits it; anything else stays
blocking. Each fault names the verdicts it produces, when it can apply, and
a *witness*: another way to run the same Case that avoids the fault. The
fault fits when the witness shows none of those verdicts. A disagreement is
explained only when fitting faults explain every blocking verdict of it
(two faults may meet in one program).

``tests/test_compiler_faults.py`` checks on every release that each fault
reproduces exactly where its entry says, so a fixed release (or a newly
affected one) fails that test until the entry is brought up to date.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Iterable
from typing import Any

import torch

from oracles.case import Case
from oracles.findings import Finding

# The witnesses: "static" compiles the Case alone, statically; "aot_eager"
# runs it through every stage before Inductor; "no autograd cache" compiles
# it afresh with AOTAutograd's cache off.
WITNESSES = ("static", "aot_eager", "no autograd cache")
# Verdicts that mean a run compared nothing: a witness showing one (that its
# fault does not explain) is no evidence.
NO_COMPARISON = frozenset({"harness", "compiled", "crash", "fake", "outputs", "out argument"})


@dataclasses.dataclass(frozen=True)
class Situation:
    """What triage knows of a disagreement before it compiles anything."""

    case: Case
    batched: bool  # compiled with dynamic shapes for a batch
    writes: bool  # the op declares in-place writes


@dataclasses.dataclass(frozen=True)
class KnownFault:
    name: str
    releases: tuple[str, ...]  # torch version prefixes it affects, such as "2.13."
    summary: str
    repro: str  # the test that reproduces it
    explains: frozenset[str]  # the verdicts it produces
    applies: Callable[[Situation], bool]  # where it can arise
    witness: str  # one of WITNESSES: a run that avoids it

    def affects(self, version: str = torch.__version__) -> bool:
        return version.startswith(self.releases)

    def explain(self, finding: Finding) -> Finding:
        """``finding``, demoted to a non-blocking report of this fault."""
        return Finding(
            "known compiler fault",
            f"{finding} (explained by the known Inductor fault {self.name!r} of torch "
            f"{torch.__version__}: {self.summary}; repro: {self.repro})",
            blocking=False,
        )


def triage(
    found: list[Finding], situation: Situation, witness: Callable[[str], list[Finding]]
) -> list[Finding]:
    """``found`` with every blocking Finding demoted to the known fault that
    explains it, if fitting faults explain them all; else ``found`` as it is.
    ``witness(name)`` runs the Case the named way (it compiles: called only
    when a fault could apply, at most once per witness)."""
    blocking = {f.verdict for f in found if f.blocking}
    runs: dict[str, set[str]] = {}

    def seen(name: str) -> set[str]:
        if name not in runs:
            runs[name] = {f.verdict for f in witness(name) if f.blocking}
        return runs[name]

    def fits(fault: KnownFault) -> bool:
        shown = seen(fault.witness)
        compared = not (shown & NO_COMPARISON) - fault.explains
        return compared and not shown & fault.explains & blocking

    fitting = [
        fault
        for fault in KNOWN_FAULTS
        if fault.affects()
        and blocking & fault.explains
        and fault.applies(situation)
        and fits(fault)
    ]
    if not blocking or not blocking <= {v for fault in fitting for v in fault.explains}:
        return found

    def demoted(finding: Finding) -> Finding:
        if not finding.blocking:
            return finding
        return next(f for f in fitting if finding.verdict in f.explains).explain(finding)

    return [demoted(finding) for finding in found]


def negative_zero(values: Iterable[Any]) -> bool:
    """Some plain value (or an item of a list of them) is the float -0.0."""
    for value in values:
        if isinstance(value, (list, tuple)) and negative_zero(value):
            return True
        if isinstance(value, float) and value == 0 and math.copysign(1, value) < 0:
            return True
    return False


DYNAMIC_WRITE_BACK = KnownFault(
    name="dynamic-shape write-back",
    releases=("2.13.", "2.14."),
    summary="with dynamic shapes, an in-place op's write to a strided view of a "
    "graph input at a nonzero storage offset lands at the wrong offset",
    repro="tests/test_compiler_faults.py::test_dynamic_write_back_verdict_agrees_with_a_"
    "direct_comparison",
    explains=frozenset({"values"}),
    applies=lambda s: s.batched and s.writes,
    witness="static",
)


AUTOGRAD_CACHE_SPECIALIZATION = KnownFault(
    name="autograd-cache specialization",
    releases=("2.13.",),
    summary="AOTAutograd's cache serves a graph specialized to a size of 1 to a "
    "recompile of the same program at another size",
    repro="tests/test_compiler_faults.py::test_a_cached_graph_specialized_to_other_sizes_"
    "is_reported",
    explains=frozenset({"values", "compiled"}),
    applies=lambda s: s.batched,
    witness="no autograd cache",
)


MUTATED_INPUT_ALIAS = KnownFault(
    name="mutated-input alias",
    releases=("2.13.", "2.14."),
    summary="after an op mutates a graph input, a copy of it (clone(), or a cat of "
    "that one tensor) comes back as a view of the input: writing to the result "
    "changes the input (upstream pytorch/pytorch#195451 and its fix PR #195484)",
    repro="tests/test_compiler_faults.py::test_the_known_fault_list_says_where_a_"
    "copy_of_a_mutated_input_aliases_it",
    explains=frozenset({"aliasing", "metadata"}),
    applies=lambda s: s.writes,
    witness="aot_eager",
)


NEGATIVE_ZERO_CONSTANT = KnownFault(
    name="dynamic -0.0 constant",
    releases=("2.13.", "2.14."),
    summary="with dynamic shapes, AOTAutograd passes a float argument of -0.0 to a "
    "custom op as +0.0 (Dynamo alone and static compiles pass -0.0)",
    repro="tests/test_compiler_faults.py::test_the_known_fault_list_says_where_a_negative_"
    "zero_constant_loses_its_sign",
    explains=frozenset({"values"}),
    applies=lambda s: s.batched and negative_zero(s.case.args.values()),
    witness="static",
)


KNOWN_FAULTS = (
    DYNAMIC_WRITE_BACK,
    MUTATED_INPUT_ALIAS,
    NEGATIVE_ZERO_CONSTANT,
    AUTOGRAD_CACHE_SPECIALIZATION,
)
