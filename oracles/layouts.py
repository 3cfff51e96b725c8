"""A Hypothesis strategy for strided tensors: views of a larger buffer.

Every layout is a buffer plus view operations (see ``oracles.case``): the
buffer is allocated in memory order with padding on some dimensions, narrowed
back to the wanted sizes (gaps between rows, a storage offset), permuted into
logical order, and for read-only inputs some dimensions are broadcast with
stride 0. A layout is drawn in stages: its LayoutStructure (what a
compiled program specializes on), then a LayoutPlan (the padding), then
its sizes, so one structure or plan can be drawn again at other sizes.
"""

from __future__ import annotations

import dataclasses

from hypothesis import strategies as st


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


@st.composite
def layout_structures(
    draw: st.DrawFn,
    ndim: int,
    *,
    last_dim_contiguous: bool = True,
    allow_broadcast: bool = False,
) -> LayoutStructure:
    """``last_dim_contiguous`` keeps the last dimension innermost with stride 1
    (the constraint of most fused kernels); ``allow_broadcast`` lets dimensions
    get stride 0, which only read-only inputs may have.
    """
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
    return LayoutStructure(tuple(order), padded, frozenset(broadcast))


@dataclasses.dataclass(frozen=True)
class LayoutPlan:
    """A LayoutStructure with its padding drawn: gives a Layout of any shape.

    ``pads`` holds, per memory position, the extra length of the buffer and
    where the view starts in it ((0, 0) where unpadded), so the Layouts of
    one plan differ only in the sizes of the view.
    """

    structure: LayoutStructure
    pads: tuple[tuple[int, int], ...]

    def of(self, shape: tuple[int, ...]) -> Layout:
        structure = self.structure
        buffer_shape, ops = [], []
        for position, (dim, (pad, start)) in enumerate(
            zip(structure.order, self.pads, strict=True)
        ):
            size = 1 if dim in structure.broadcast else shape[dim]
            buffer_shape.append(size + pad)
            if pad:
                ops.append(("narrow", position, start, size))
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
    return LayoutPlan(structure, tuple(pads))


def layouts_of(
    structure: LayoutStructure, shape: tuple[int, ...], max_pad: int = 3
) -> st.SearchStrategy[Layout]:
    """Layouts of ``structure`` giving a view of ``shape``."""
    return layout_plans(structure, max_pad).map(lambda plan: plan.of(shape))


def strided_layouts(
    shape: tuple[int, ...],
    *,
    last_dim_contiguous: bool = True,
    allow_broadcast: bool = False,
    max_pad: int = 3,
) -> st.SearchStrategy[Layout]:
    """Layouts giving a view of ``shape``: a structure, then its sizes."""
    structures = layout_structures(
        len(shape), last_dim_contiguous=last_dim_contiguous, allow_broadcast=allow_broadcast
    )
    return structures.flatmap(lambda structure: layouts_of(structure, shape, max_pad))
