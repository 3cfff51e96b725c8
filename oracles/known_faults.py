"""Known compiler faults: upstream bugs the suite found, matched on evidence.

A Finding that a known fault explains stays in the report, as a non-blocking
Finding that names the fault, but only on the torch releases the fault is
known to affect and only when the evidence fits it; anything else stays
blocking. ``tests/test_compiler_faults.py`` checks on every release that
each fault reproduces exactly where its entry says, so a fixed release (or
a newly affected one) fails that test until the entry is brought up to date.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import torch

from oracles.findings import Finding


@dataclasses.dataclass(frozen=True)
class KnownFault:
    name: str
    releases: tuple[str, ...]  # torch version prefixes it affects, such as "2.13."
    summary: str
    repro: str  # the test that reproduces it

    def affects(self, version: str = torch.__version__) -> bool:
        return version.startswith(self.releases)

    def fits(self, evidence: Callable[[], bool]) -> bool:
        """This release has the fault and ``evidence()`` (which may compile,
        so it runs only then) fits it."""
        return self.affects() and evidence()

    def explain(self, finding: Finding) -> Finding:
        """``finding``, demoted to a non-blocking report of this fault."""
        return Finding(
            "known compiler fault",
            f"{finding} (explained by the known Inductor fault {self.name!r} of torch "
            f"{torch.__version__}: {self.summary}; repro: {self.repro})",
            blocking=False,
        )


DYNAMIC_WRITE_BACK = KnownFault(
    name="dynamic-shape write-back",
    releases=("2.13.", "2.14."),
    summary="with dynamic shapes, an in-place op's write to a strided view of a "
    "graph input at a nonzero storage offset lands at the wrong offset",
    repro="tests/test_compiler_faults.py::test_dynamic_write_back_verdict_agrees_"
    "with_a_direct_comparison",
)


AUTOGRAD_CACHE_SPECIALIZATION = KnownFault(
    name="autograd-cache specialization",
    releases=("2.13.",),
    summary="AOTAutograd's cache serves a graph specialized to a size of 1 to a "
    "recompile of the same program at another size",
    repro="tests/test_compiler_faults.py::test_a_cached_graph_specialized_to_other_sizes_"
    "is_reported",
)


MUTATED_INPUT_ALIAS = KnownFault(
    name="mutated-input alias",
    releases=("2.13.", "2.14."),
    summary="after an op mutates a graph input, a copy of it (clone(), or a cat of "
    "that one tensor) comes back as a view of the input: writing to the result "
    "changes the input (upstream pytorch/pytorch#195451 and its fix PR #195484)",
    repro="tests/test_compiler_faults.py::test_the_known_fault_list_says_where_a_"
    "copy_of_a_mutated_input_aliases_it",
)


NEGATIVE_ZERO_CONSTANT = KnownFault(
    name="dynamic -0.0 constant",
    releases=("2.13.", "2.14."),
    summary="with dynamic shapes, AOTAutograd passes a float argument of -0.0 to a "
    "custom op as +0.0 (Dynamo alone and static compiles pass -0.0)",
    repro="tests/test_compiler_faults.py::test_the_known_fault_list_says_where_a_negative_"
    "zero_constant_loses_its_sign",
)
