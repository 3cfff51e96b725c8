"""A Hypothesis strategy for strided tensors: views of a larger buffer.

Every layout is a buffer plus view operations (see ``torch_conformance.case``): the
buffer is allocated in memory order with padding on some dimensions, narrowed
back to the wanted sizes (gaps between rows, a storage offset), permuted into
logical order, and for read-only inputs some dimensions are broadcast with
stride 0; where the last dimension need not be contiguous, a view may be a
column of a wider buffer (a 1-D view with stride 2 or 3). A layout is drawn
in stages: its LayoutStructure (what a compiled program specializes on),
then a LayoutPlan (the padding), then its sizes, so one structure or plan
can be drawn again at other sizes.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from hypothesis import strategies as st

from torch_conformance.oracles.core.views import ViewOp


@dataclasses.dataclass(frozen=True)
class Layout:
    buffer_shape: tuple[int, ...]
    ops: tuple[tuple, ...]


@dataclasses.dataclass(frozen=True)
class LayoutStructure:
    """What a layout fixes apart from sizes: the same for every size it takes."""

    order: tuple[int, ...]  # logical dimensions in memory order, outermost first
    padded: tuple[bool, ...]  # per memory position: the buffer is larger there
    broadcast: frozenset[int]  # logical dimensions with stride 0
    interleave: int = 1  # > 1: a column of a buffer this much wider (every stride scaled)


@st.composite
def layout_structures(
    draw: st.DrawFn,
    ndim: int,
    *,
    last_dim_contiguous: bool | None = None,
    allow_broadcast: bool = False,
) -> LayoutStructure:
    """``last_dim_contiguous`` keeps the last dimension innermost with stride 1
    (the constraint of most fused kernels; by default for 2-D and up, while a
    1-D tensor may be a column of a 2-D buffer, as positions and scales often
    are); ``allow_broadcast`` lets dimensions get stride 0, which only
    read-only inputs may have.
    """
    if last_dim_contiguous is None:
        last_dim_contiguous = ndim > 1
    movable = list(range(ndim - 1)) if last_dim_contiguous and ndim else list(range(ndim))
    order = list(draw(st.permutations(movable))) if len(movable) > 1 else movable
    if len(order) < ndim:
        order.append(ndim - 1)
    broadcast = set()
    if allow_broadcast:
        broadcast = {d for d in range(ndim) if draw(st.booleans())}
        if last_dim_contiguous and ndim:
            broadcast.discard(ndim - 1)
    padded = tuple(draw(st.booleans()) for _ in range(ndim))
    interleave = 1 if last_dim_contiguous else draw(st.sampled_from((1, 1, 2, 3)))
    return LayoutStructure(tuple(order), padded, frozenset(broadcast), interleave)


@dataclasses.dataclass(frozen=True)
class LayoutPlan:
    """A LayoutStructure with its padding drawn: gives a Layout of any shape.

    ``pads`` holds, per memory position, the extra length of the buffer and
    where the view starts in it ((0, 0) where unpadded), so the Layouts of
    one plan differ only in the sizes of the view.
    """

    structure: LayoutStructure
    pads: tuple[tuple[int, int], ...]
    column: int = 0  # which column of an interleaved buffer

    def of(self, shape: tuple[int, ...]) -> Layout:
        structure = self.structure
        buffer_shape: list[int] = []
        ops: list[ViewOp] = []
        for position, (dim, (pad, start)) in enumerate(
            zip(structure.order, self.pads, strict=True)
        ):
            size = 1 if dim in structure.broadcast else shape[dim]
            buffer_shape.append(size + pad)
            if pad:
                ops.append(("narrow", position, start, size))
        if structure.interleave > 1:
            buffer_shape.append(structure.interleave)
            ops.append(("select", len(buffer_shape) - 1, self.column))
        inverse = tuple(structure.order.index(d) for d in range(len(shape)))
        if inverse != tuple(range(len(shape))):
            ops.append(("permute", inverse))
        if structure.broadcast:
            ops.append(("expand", tuple(shape)))
        return Layout(tuple(buffer_shape), tuple(ops))


@st.composite
def layout_plans(draw: st.DrawFn, structure: LayoutStructure, max_pad: int = 3) -> LayoutPlan:
    pads = []
    for padded in structure.padded:
        pad = draw(st.integers(1, max_pad)) if padded else 0
        pads.append((pad, draw(st.integers(0, pad)) if pad else 0))
    column = draw(st.integers(0, structure.interleave - 1))
    return LayoutPlan(structure, tuple(pads), column)


def layouts_of(
    structure: LayoutStructure, shape: tuple[int, ...], max_pad: int = 3
) -> st.SearchStrategy[Layout]:
    """Layouts of ``structure`` giving a view of ``shape``."""
    return layout_plans(structure, max_pad).map(lambda plan: plan.of(shape))


def strided_layouts(
    shape: tuple[int, ...],
    *,
    last_dim_contiguous: bool | None = None,
    allow_broadcast: bool = False,
    max_pad: int = 3,
) -> st.SearchStrategy[Layout]:
    """Layouts giving a view of ``shape``: a structure, then its sizes.

    ``last_dim_contiguous`` (default: for 2-D and up) keeps stride 1 in the
    last dimension; otherwise a view may also be a column of a wider buffer,
    every stride scaled (a 1-D view with stride 2 or 3).
    """
    structures = layout_structures(
        len(shape), last_dim_contiguous=last_dim_contiguous, allow_broadcast=allow_broadcast
    )
    return structures.flatmap(lambda structure: layouts_of(structure, shape, max_pad))


def fused_columns(
    rows: tuple[int, ...],
    widths: Sequence[int],
    *,
    gap: int = 0,
    shapes: Sequence[tuple[int, ...] | None] | None = None,
) -> list[Layout]:
    """Adjacent column blocks of one ``[*rows, sum(widths) + gap]`` buffer, as
    model code takes q, k and v from a fused projection with
    ``qkv.split(widths, -1)``: one Layout per block, all of the same buffer.

    ``gap`` adds columns after the last block (so the last block does not end
    its row); ``shapes[i]``, if given, views block ``i`` as that shape (such
    as ``[*rows, heads, head_size]``).
    """
    split = (*widths, gap) if gap else tuple(widths)
    buffer_shape = (*rows, sum(split))
    layouts = []
    for index in range(len(widths)):
        ops: list[ViewOp] = [("split", split, -1, index)]
        shape = None if shapes is None else shapes[index]
        if shape is not None:
            ops.append(("view", tuple(shape)))
        layouts.append(Layout(buffer_shape, tuple(ops)))
    return layouts
