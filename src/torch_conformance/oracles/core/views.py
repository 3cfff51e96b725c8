"""The view operations: one vocabulary for Cases, generated programs and scripts.

A view operation is written ``("name", *params)``. Each kind says which of
its parameters are sizes (they vary with a Case's sizes; the others are
structure), how it is made on a tensor, and how it reads as Python, so the
Case's views, a program's view Steps and a repro script's views are the same
operations, made and written one way.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import Any

import torch

# One view operation: a VIEW_OPS name and its parameters.
ViewOp = tuple[Any, ...]
# How a parameter value reads as Python (a literal, or a size input's name).
Show = Callable[[Any], str]


class CaseError(ValueError):
    """A Case is malformed: an unknown view operation, an unsupported argument value."""


@dataclasses.dataclass(frozen=True)
class ViewKind:
    """A view operation: which of its parameters are sizes, how it is made,
    and ``expression(base, params, show, rank)``, the Python that makes it of
    ``base`` (``rank``: the rank of what it applies to, where known)."""

    sizes: tuple[bool, ...]
    make: Callable[..., torch.Tensor]
    expression: Callable[[str, Sequence[Any], Show, int | None], str]


def _slice(t: torch.Tensor, dim: int, start: int | None, end: int | None, step: int):
    return t[(slice(None),) * (dim % t.dim()) + (slice(start, end, step),)]


def _method(name: str) -> Callable[[str, Sequence[Any], Show, int | None], str]:
    """``base.name(p0, p1, ...)``."""
    return lambda base, params, show, rank: f"{base}.{name}({', '.join(map(show, params))})"


def _shaped(name: str) -> Callable[[str, Sequence[Any], Show, int | None], str]:
    """``base.name(2, 3)``: a shape given as a tuple, spread as its sizes."""

    def expression(base: str, params: Sequence[Any], show: Show, rank: int | None) -> str:
        (shape,) = params
        sizes = ", ".join(map(show, shape)) if isinstance(shape, (tuple, list)) else show(shape)
        return f"{base}.{name}({sizes or '()'})"

    return expression


def _split_expression(base: str, params: Sequence[Any], show: Show, rank: int | None) -> str:
    sizes, dim, index = params
    return f"{base}.split({show(list(sizes))}, {show(dim)})[{show(index)}]"


def _slice_expression(base: str, params: Sequence[Any], show: Show, rank: int | None) -> str:
    dim, start, end, step = params
    before = dim if rank is None else dim % rank
    return f"{base}[{':, ' * before}{show(start)}:{show(end)}:{show(step)}]"


VIEW_OPS: dict[str, ViewKind] = {
    "split": ViewKind(
        (True, False, False), lambda t, s, d, i: t.split(list(s), d)[i], _split_expression
    ),
    "view": ViewKind((True,), lambda t, shape: t.view(shape), _shaped("view")),
    "permute": ViewKind((False,), lambda t, dims: t.permute(dims), _shaped("permute")),
    "narrow": ViewKind(
        (False, True, True), lambda t, d, start, n: t.narrow(d, start, n), _method("narrow")
    ),
    "expand": ViewKind((True,), lambda t, shape: t.expand(shape), _shaped("expand")),
    "select": ViewKind((False, True), lambda t, d, i: t.select(d, i), _method("select")),
    # A slice with a step: ("slice", dim, start, end, step), how interleaved layouts are made.
    "slice": ViewKind((False, True, True, False), _slice, _slice_expression),
    "unsqueeze": ViewKind((False,), lambda t, d: t.unsqueeze(d), _method("unsqueeze")),
    "squeeze": ViewKind((False,), lambda t, d: t.squeeze(d), _method("squeeze")),
    "transpose": ViewKind((False, False), lambda t, a, b: t.transpose(a, b), _method("transpose")),
    "unfold": ViewKind(
        (False, True, True), lambda t, d, size, step: t.unfold(d, size, step), _method("unfold")
    ),
    "as_strided": ViewKind(
        (True, True, True),
        lambda t, size, stride, offset: t.as_strided(size, stride, offset),
        _method("as_strided"),
    ),
}


def check_view_ops(ops: tuple[ViewOp, ...], where: str) -> None:
    """Raise CaseError naming ``where`` unless every operation is known and well formed."""
    for op in ops:
        if not isinstance(op, tuple) or not op or op[0] not in VIEW_OPS:
            raise CaseError(f"{where}: unknown view operation {op!r}; known: {', '.join(VIEW_OPS)}")
        arity = len(VIEW_OPS[op[0]].sizes)
        if len(op) != arity + 1:
            raise CaseError(
                f"{where}: view operation {op!r} takes {arity} parameter(s), got {len(op) - 1}"
            )


def apply_view_ops(tensor: torch.Tensor, ops: Sequence[ViewOp]) -> torch.Tensor:
    for name, *params in ops:
        tensor = VIEW_OPS[name].make(tensor, *params)
    return tensor


def view_ranks(tensor: torch.Tensor, ops: Sequence[ViewOp]) -> list[int]:
    """The rank of the tensor each operation applies to."""
    ranks = []
    for name, *params in ops:
        ranks.append(tensor.dim())
        tensor = VIEW_OPS[name].make(tensor, *params)
    return ranks


def view_expression(
    base: str, ops: Sequence[ViewOp], ranks: Sequence[int | None], show: Show
) -> str:
    """The view ``ops`` of ``base`` as Python; ``ranks[i]`` is the rank of
    the tensor operation ``i`` applies to (a slice of a negative dim needs it)."""
    expression = base
    for (name, *params), rank in zip(ops, ranks, strict=True):
        expression = VIEW_OPS[name].expression(expression, params, show, rank)
    return expression
