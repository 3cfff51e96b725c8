"""The strided-tensor strategy produces each layout it promises, and only valid ones."""

from __future__ import annotations

import torch
from hypothesis import find, given, settings
from hypothesis import strategies as st

from torch_conformance.oracles.core.views import apply_view_ops
from torch_conformance.oracles.strategies.strided import Layout, fused_columns, strided_layouts

SHAPES = st.lists(st.integers(1, 5), min_size=1, max_size=4).map(tuple)


# Deterministic and patient: a layout that exists must always be found.
FIND = settings(max_examples=5000, derandomize=True, database=None)


def view_of(layout: Layout) -> torch.Tensor:
    return apply_view_ops(torch.empty(layout.buffer_shape), layout.ops)


@settings(max_examples=200)
@given(data=st.data(), shape=SHAPES, contiguous_last=st.booleans(), broadcast=st.booleans())
def test_views_have_the_shape_and_respect_the_constraint(data, shape, contiguous_last, broadcast):
    layout = data.draw(
        strided_layouts(shape, last_dim_contiguous=contiguous_last, allow_broadcast=broadcast)
    )
    view = view_of(layout)
    assert tuple(view.shape) == shape
    if contiguous_last:
        assert view.stride(-1) == 1
    if not broadcast:
        assert all(view.stride(d) > 0 for d in range(view.dim()) if shape[d] > 1)


def _find(shape, predicate, **flags) -> torch.Tensor:
    layouts = strided_layouts(shape, **flags)
    return view_of(find(layouts, lambda lay: predicate(view_of(lay)), settings=FIND))


def test_produces_gaps_between_rows():
    view = _find((3, 4), lambda v: v.stride(0) > 4)
    assert view.stride(1) == 1


def test_produces_permuted_dimensions():
    view = _find((3, 4, 5), lambda v: v.stride(0) < v.stride(1))
    assert view.stride(-1) == 1


def test_produces_storage_offsets():
    assert _find((3, 4), lambda v: v.storage_offset() > 0).storage_offset() > 0


def test_produces_broadcast_dimensions_for_read_only_inputs():
    view = _find((3, 4), lambda v: v.stride(0) == 0, allow_broadcast=True)
    assert view.stride(1) == 1


def test_may_move_the_last_dimension_when_unconstrained():
    view = _find((3, 4), lambda v: v.stride(-1) != 1, last_dim_contiguous=False)
    assert view.stride(-1) > 1


def test_one_dimensional_views_may_be_columns_of_a_wider_buffer_by_default():
    # Positions, scales and index tensors are often a column of a 2-D buffer.
    view = _find((5,), lambda v: v.stride(0) > 1)
    assert view.stride(0) in (2, 3)
    assert _find((5,), lambda v: v.stride(0) > 1 and v.storage_offset() > 0).dim() == 1


def test_fused_columns_are_the_blocks_of_one_buffer():
    query, key, value = fused_columns((4,), [64, 16, 16], gap=8, shapes=[(4, 4, 16), None, None])
    assert query.buffer_shape == key.buffer_shape == (4, 104)
    assert view_of(query).shape == (4, 4, 16) and view_of(query).stride() == (104, 16, 1)
    assert view_of(key).stride() == (104, 1) and view_of(key).storage_offset() == 64
    assert view_of(value).storage_offset() == 80
