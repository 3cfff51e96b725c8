"""The known compiler faults, as data: what each explains, where it can arise,
the witness that avoids it, and its upstream references and releases."""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

from oracles.core.program import STEPS
from oracles.core.verdicts import ALIASING, COMPILED, METADATA, VALUES
from oracles.triage.engine import KnownFault, Situation


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
    explains=frozenset({VALUES}),
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
    explains=frozenset({VALUES, COMPILED}),
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
    explains=frozenset({ALIASING, METADATA}),
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
    explains=frozenset({VALUES}),
    applies=lambda s: s.batched and negative_zero(s.case.args.values()),
    witness="static",
)


# Steps of a drawn program that read a tensor at other positions than they
# write, and Steps that write in place.
_READS_ELSEWHERE = frozenset(k for k, kind in STEPS.items() if kind.reads_elsewhere)
_WRITES = frozenset(k for k, kind in STEPS.items() if kind.role == "write")


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
    explains=frozenset({VALUES}),
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
    explains=frozenset({VALUES}),
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
    explains=frozenset({COMPILED}),
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
    explains=frozenset({METADATA}),
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
    explains=frozenset({VALUES}),
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
    explains=frozenset({COMPILED}),
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
