"""A Hypothesis strategy for strided tensors: views of a larger buffer.

Every layout is a buffer plus view operations (see ``oracles.case``): the
buffer is allocated in memory order with padding on each dimension, narrowed
back to the wanted sizes (gaps between rows, a storage offset), permuted into
logical order, and for read-only inputs some dimensions are broadcast with
stride 0.
"""

from __future__ import annotations

import dataclasses

from hypothesis import strategies as st


@dataclasses.dataclass(frozen=True)
class Layout:
    buffer_shape: tuple[int, ...]
    ops: tuple[tuple, ...]


@st.composite
def strided_layouts(
    draw: st.DrawFn,
    shape: tuple[int, ...],
    *,
    last_dim_contiguous: bool = True,
    allow_broadcast: bool = False,
    max_pad: int = 3,
) -> Layout:
    """A Layout giving a view of ``shape``.

    ``last_dim_contiguous`` keeps the last dimension innermost with stride 1
    (the constraint of most fused kernels); ``allow_broadcast`` lets
    dimensions of size > 1 get stride 0, which only read-only inputs may have.
    """
    ndim = len(shape)
    movable = list(range(ndim - 1)) if last_dim_contiguous and ndim else list(range(ndim))
    order = draw(st.permutations(movable)) if len(movable) > 1 else movable
    if len(order) < ndim:
        order = [*order, ndim - 1]
    broadcast = (
        {d for d in range(ndim) if shape[d] > 1 and draw(st.booleans())}
        if allow_broadcast
        else set()
    )
    if last_dim_contiguous and ndim:
        broadcast.discard(ndim - 1)

    buffer_shape, narrows = [], []
    for position, dim in enumerate(order):
        size = 1 if dim in broadcast else shape[dim]
        pad = draw(st.integers(0, max_pad))
        start = draw(st.integers(0, pad))
        buffer_shape.append(size + pad)
        if pad:
            narrows.append(("narrow", position, start, size))
    ops: list[tuple] = list(narrows)
    inverse = tuple(order.index(d) for d in range(ndim))
    if inverse != tuple(range(ndim)):
        ops.append(("permute", inverse))
    if broadcast:
        ops.append(("expand", tuple(shape)))
    return Layout(tuple(buffer_shape), tuple(ops))
