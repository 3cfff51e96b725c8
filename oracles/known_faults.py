"""Known compiler faults: upstream bugs the suite found, matched on evidence.

A Finding that a known fault explains stays in the report, as a non-blocking
Finding that names the fault, but only on the torch releases the fault is
known to affect and only when the evidence fits it; anything else stays
blocking. Each fault names the verdicts it produces, when it can apply, and
a *witness*: another way to run the same Case that avoids the fault. The
fault fits when the witness shows none of those verdicts. A disagreement is
explained only when fitting faults explain every blocking verdict of it
(two faults may meet in one program).

Each fault has a standalone reproduction in plain torch, ``upstream/<name>.py``,
ready for an upstream report. The gate (``suites/test_known_faults.py``)
runs it on every release and fails where it disagrees with the entry's
releases, so a fixed release (or a newly affected one) fails until the entry
is brought up to date; the reports record where each fault reproduces.
"""

from __future__ import annotations

import dataclasses
import math
import subprocess
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import torch

from oracles.case import Case
from oracles.findings import Finding

# The witnesses: "static" compiles the Case alone, statically; "aot_eager"
# runs it through every stage before Inductor; "no autograd cache" compiles
# it afresh with AOTAutograd's cache off; "pattern" runs nothing, for a fault
# every compiled stage shares, known by the program's pattern alone.
WITNESSES = ("static", "aot_eager", "no autograd cache", "pattern")
# Verdicts that mean a run compared nothing: a witness showing one (that its
# fault does not explain) is no evidence.
NO_COMPARISON = frozenset({"harness", "compiled", "crash", "fake", "outputs", "out argument"})


@dataclasses.dataclass(frozen=True)
class Situation:
    """What triage knows of a disagreement before it compiles anything."""

    case: Case
    batched: bool  # compiled with dynamic shapes (for a batch, or a drawn program)
    writes: bool  # the op declares in-place writes (or the program writes)
    kinds: tuple[str, ...] = ()  # the kinds of Step of a drawn program around the op
    written_through: frozenset[str] = frozenset()  # view kinds the program writes through


@dataclasses.dataclass(frozen=True)
class KnownFault:
    name: str
    releases: tuple[str, ...]  # torch version prefixes it affects, such as "2.13."
    summary: str
    script: str  # its standalone reproduction: upstream/<script>.py
    upstream: tuple[str, ...]  # its upstream issues, as owner/repo#N
    fixes: tuple[str, ...]  # the upstream pull requests that fix it
    explains: frozenset[str]  # the verdicts it produces
    applies: Callable[[Situation], bool]  # where it can arise
    witness: str  # one of WITNESSES: a run that avoids it

    def affects(self, version: str = torch.__version__) -> bool:
        return version.startswith(self.releases)

    def references(self) -> str:
        words = [f"upstream {u}" for u in self.upstream] + [f"fix PR {f}" for f in self.fixes]
        return "".join(f"{w}; " for w in words)

    @property
    def repro(self) -> str:
        return f"python upstream/{self.script}.py"

    def reproduces(self) -> bool:
        """Its standalone reproduction shows it on this torch release: the
        script runs in a process of its own, as a reader of its report would
        run it, so its compiles and resets touch nothing else."""
        script = Path(__file__).resolve().parent.parent / "upstream" / f"{self.script}.py"
        run = subprocess.run([sys.executable, str(script)], capture_output=True, text=True)
        if run.returncode not in (0, 1):
            raise RuntimeError(f"{self.repro} failed to run: {run.stderr[-2000:]}")
        return run.returncode == 1

    def explain(self, finding: Finding) -> Finding:
        """``finding``, demoted to a non-blocking report of this fault."""
        return Finding(
            "known compiler fault",
            f"{finding} (explained by the known Inductor fault {self.name!r} of torch "
            f"{torch.__version__}: {self.summary}; {self.references()}repro: {self.repro})",
            blocking=False,
            fault=self.name,
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
    for fault in KNOWN_FAULTS:
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
    releases=("2.11.", "2.12.", "2.13.", "2.14.", "2.15."),
    summary="with dynamic shapes, an in-place op's write to a strided view of a "
    "graph input at a nonzero storage offset lands at the wrong offset",
    script="dynamic_write_back",
    upstream=("pytorch/pytorch#198068",),
    fixes=("pytorch/pytorch#198069",),
    explains=frozenset({"values"}),
    applies=lambda s: s.batched and s.writes,
    witness="static",
)


AUTOGRAD_CACHE_SPECIALIZATION = KnownFault(
    name="autograd-cache specialization",
    releases=("2.11.", "2.12.", "2.13."),
    summary="AOTAutograd's cache serves a graph specialized to a size of 1 to a "
    "recompile of the same program at another size",
    script="autograd_cache_specialization",
    upstream=(),
    fixes=(),
    explains=frozenset({"values", "compiled"}),
    applies=lambda s: s.batched,
    witness="no autograd cache",
)


MUTATED_INPUT_ALIAS = KnownFault(
    name="mutated-input alias",
    releases=("2.11.", "2.12.", "2.13.", "2.14.", "2.15."),
    summary="after an op mutates a graph input, a copy of it (clone(), or a cat of "
    "that one tensor) comes back as a view of the input: writing to the result "
    "changes the input",
    script="mutated_input_alias",
    upstream=("pytorch/pytorch#195451",),
    fixes=("pytorch/pytorch#195484",),
    explains=frozenset({"aliasing", "metadata"}),
    applies=lambda s: s.writes,
    witness="aot_eager",
)


NEGATIVE_ZERO_CONSTANT = KnownFault(
    name="dynamic -0.0 constant",
    releases=("2.11.", "2.12.", "2.13.", "2.14.", "2.15."),
    summary="with dynamic shapes, AOTAutograd passes a float argument of -0.0 to a "
    "custom op as +0.0 (Dynamo alone and static compiles pass -0.0)",
    script="negative_zero_constant",
    upstream=(),
    fixes=(),
    explains=frozenset({"values"}),
    applies=lambda s: s.batched and negative_zero(s.case.args.values()),
    witness="static",
)


# Steps of a drawn program that read a tensor at other positions than they
# write, and Steps that write in place.
_READS_ELSEWHERE = frozenset({"flip", "roll", "index_select", "index_copy_", "setitem"})
_WRITES = frozenset({"add_", "copy_", "index_copy_", "setitem", "mul_", "neg_", "fill_", "scale_"})


def _mirrored_read(s: Situation) -> bool:
    kinds = set(s.kinds)
    return s.writes and bool(kinds & _READS_ELSEWHERE) and bool(kinds & _WRITES)


MIRRORED_READ_AFTER_WRITE = KnownFault(
    name="mirrored read after a write",
    releases=("2.11.", "2.12.", "2.13.", "2.14."),
    summary="after an in-place update of a graph input (a mutating custom op, "
    "index_copy_, index_put_), an in-place update that reads the same tensor at "
    "other positions (add_ of its flip) is fused with the copy back into the input "
    "and reads values already updated",
    script="mirrored_read_after_write",
    upstream=("pytorch/pytorch#198270",),
    fixes=(),
    explains=frozenset({"values"}),
    applies=_mirrored_read,
    witness="aot_eager",
)


UNFOLD_WRITE = KnownFault(
    name="write through unfold",
    releases=("2.11.", "2.12.", "2.13.", "2.14.", "2.15."),
    summary="functionalization inverts a write through an unfold view with "
    "unfold_backward, which zeroes the elements no window covers (and turns -0.0 "
    "into +0.0 where windows cover)",
    script="unfold_write",
    upstream=("pytorch/pytorch#198102",),
    fixes=("pytorch/pytorch#198105",),
    explains=frozenset({"values"}),
    applies=lambda s: "unfold" in s.written_through,
    witness="pattern",
)


DYNAMIC_DOUBLE_UNFOLD = KnownFault(
    name="dynamic double unfold",
    releases=("2.11.", "2.12.", "2.13.", "2.14.", "2.15."),
    summary="with dynamic shapes, an unfold of an unfold of a graph input's view "
    "whose size is an int input gets contiguous strides its storage cannot hold "
    "(setStorage ... out of bounds)",
    script="dynamic_double_unfold",
    upstream=(),
    fixes=(),
    explains=frozenset({"compiled"}),
    applies=lambda s: s.batched and "unfold" in s.kinds,
    witness="aot_eager",
)


INDEX_COPY_LAYOUT = KnownFault(
    name="index_copy layout",
    releases=("2.11.", "2.12.", "2.13.", "2.14.", "2.15."),
    summary="functionalization turns index_copy_ into an index_copy that returns a "
    "contiguous tensor, so what a program computes from the updated input takes "
    "that layout instead of the input's (every compiled stage shares it)",
    script="index_copy_layout",
    upstream=("pytorch/pytorch#133512",),
    fixes=(),
    explains=frozenset({"metadata"}),
    applies=lambda s: "index_copy_" in s.kinds,
    witness="pattern",
)


COPY_BEFORE_MUTATION = KnownFault(
    name="copy before a mutation",
    releases=("2.11.", "2.12.", "2.13.", "2.14.", "2.15."),
    summary="a copy_ from a graph input's view, taken before an opaque custom op "
    "mutates that view, receives the mutated values",
    script="copy_before_mutation",
    upstream=("pytorch/pytorch#198131",),
    fixes=("pytorch/pytorch#198132",),
    explains=frozenset({"values"}),
    applies=lambda s: s.writes and "copy_" in s.kinds,
    witness="aot_eager",
)


CAT_VIEW = KnownFault(
    name="view of a cat",
    releases=("2.11.", "2.12.", "2.13.", "2.14.", "2.15."),
    summary="Inductor lays out a cat of permuted views in their stride order and "
    "then cannot compile a view of it that eager allows",
    script="cat_view",
    upstream=(),
    fixes=(),
    explains=frozenset({"compiled"}),
    applies=lambda s: {"cat", "view"} <= set(s.kinds),
    witness="aot_eager",
)


KNOWN_FAULTS = (
    DYNAMIC_WRITE_BACK,
    MUTATED_INPUT_ALIAS,
    NEGATIVE_ZERO_CONSTANT,
    AUTOGRAD_CACHE_SPECIALIZATION,
    MIRRORED_READ_AFTER_WRITE,
    UNFOLD_WRITE,
    DYNAMIC_DOUBLE_UNFOLD,
    INDEX_COPY_LAYOUT,
    COPY_BEFORE_MUTATION,
    CAT_VIEW,
)
