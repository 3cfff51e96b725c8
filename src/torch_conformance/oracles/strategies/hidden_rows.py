"""Hypothesis strategies for Cases whose tensors are rows of a hidden dimension.

Norms, activations and collectives take ``[T, hidden]`` or ``[B, S, hidden]``
tensors, often rows of a larger buffer (padding between rows, a storage
offset, permuted leading dimensions) with the last dimension contiguous,
and per-channel vectors (a norm's weight, any stride). A :class:`Rows`
names an op's tensors and how wide each is; its Cases are drawn in stages,
as the rope family's are: a RowsStructure (rank, dtype, each tensor's
layout structure: what a compiled program specializes on), a RowsModel (the
hidden size, each tensor's padding and the op's constants, fixed in a
model's compiled code), then the token counts and values. A batch is many
Cases of one RowsModel.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from typing import Any

import torch
from hypothesis import strategies as st

from torch_conformance.oracles.core.buffers import Buffer, Case, View
from torch_conformance.oracles.strategies.strided import (
    LayoutPlan,
    LayoutStructure,
    layout_plans,
    layout_structures,
)

FLOAT_DTYPES = (torch.float32, torch.bfloat16, torch.float16)
# Real models' hidden sizes and odd ones that miss every vector width.
HIDDEN_SIZES = (1, 7, 64, 100, 128, 1000, 2048, 4096)
MAX_TOKENS = 48


@dataclasses.dataclass(frozen=True)
class Rows:
    """An op's tensor arguments and constants.

    - ``rows``: row tensors, ``[*tokens, width * hidden]``, by name and width.
    - ``vectors``: per-channel tensors, ``[width * hidden]``, by name and width.
    - ``constants``: ``constants(draw, ndim) -> {name: value}``, the op's
      plain arguments (drawn once per RowsModel).
    - ``order``: the arguments in the order the op takes them.
    """

    rows: Mapping[str, int]
    order: tuple[str, ...]
    vectors: Mapping[str, int] = dataclasses.field(default_factory=dict)
    constants: Callable[[st.DrawFn, int], dict[str, Any]] | None = None
    dtypes: tuple[torch.dtype, ...] = FLOAT_DTYPES
    ranks: tuple[int, ...] = (2, 3)
    hidden_sizes: tuple[int, ...] = HIDDEN_SIZES
    last_dim_contiguous: bool = True  # False: row tensors of any strides


@dataclasses.dataclass(frozen=True)
class RowsStructure:
    rows: Rows
    ndim: int
    dtype: torch.dtype
    layouts: Mapping[str, LayoutStructure]


@dataclasses.dataclass(frozen=True)
class RowsModel:
    structure: RowsStructure
    hidden: int
    plans: Mapping[str, LayoutPlan]
    constants: Mapping[str, Any]


@st.composite
def rows_structures(draw: st.DrawFn, rows: Rows) -> RowsStructure:
    ndim = draw(st.sampled_from(rows.ranks))
    layouts = {
        name: draw(layout_structures(ndim, last_dim_contiguous=rows.last_dim_contiguous))
        for name in rows.rows
    }
    for name in rows.vectors:
        layouts[name] = draw(layout_structures(1, last_dim_contiguous=False))
    return RowsStructure(rows, ndim, draw(st.sampled_from(rows.dtypes)), layouts)


@st.composite
def rows_models(draw: st.DrawFn, s: RowsStructure) -> RowsModel:
    hidden = draw(st.sampled_from(s.rows.hidden_sizes) | st.integers(1, 300))
    plans = {name: draw(layout_plans(layout)) for name, layout in s.layouts.items()}
    constants = s.rows.constants(draw, s.ndim) if s.rows.constants else {}
    return RowsModel(s, hidden, plans, constants)


def rows_case(m: RowsModel, tokens: tuple[int, ...], seed: int = 0, label: str = "") -> Case:
    """The Case of ``m`` at ``tokens`` (``(T,)`` or ``(B, S)``)."""
    s = m.structure
    buffers, views = {}, {}
    shapes = {name: (*tokens, width * m.hidden) for name, width in s.rows.rows.items()}
    shapes |= {name: (width * m.hidden,) for name, width in s.rows.vectors.items()}
    for name, shape in shapes.items():
        layout = m.plans[name].of(shape)
        buffers[name] = Buffer(layout.buffer_shape, s.dtype)
        views[name] = View(name, layout.ops)
    args = {name: views[name] if name in views else m.constants[name] for name in s.rows.order}
    strided = any(v.ops for name, v in views.items() if name in s.rows.rows)
    label = label or f"{s.ndim}-D {'strided' if strided else 'contiguous'} rows"
    return Case(buffers, args, seed=seed, label=label)


@st.composite
def rows_cases_of(draw: st.DrawFn, m: RowsModel) -> Case:
    """Cases of one RowsModel: token counts (none for 1-D, ``(T,)`` for 2-D,
    ``(B, S)`` for 3-D) and values drawn."""
    tokens = {
        1: (),
        2: (draw(st.integers(1, MAX_TOKENS)),),
        3: (draw(st.integers(1, 3)), draw(st.integers(1, 8))),
    }[m.structure.ndim]
    return rows_case(m, tokens, draw(st.integers(0, 2**32 - 1)))


def rows_cases(rows: Rows) -> st.SearchStrategy[Case]:
    return rows_structures(rows).flatmap(rows_models).flatmap(rows_cases_of)


def rows_batches(rows: Rows, size: int) -> st.SearchStrategy[list[Case]]:
    """Batches of ``size`` Cases of one RowsModel, which one compiled program serves."""
    return (
        rows_structures(rows)
        .flatmap(rows_models)
        .flatmap(lambda m: st.lists(rows_cases_of(m), min_size=size, max_size=size))
    )


def contiguous_model(
    rows: Rows, ndim: int, dtype: torch.dtype, hidden: int, constants: Mapping[str, Any]
) -> RowsModel:
    """A model whose tensors are all contiguous (for explicit examples)."""
    dense = {
        name: LayoutStructure(tuple(range(n)), (False,) * n, frozenset())
        for name, n in [(r, ndim) for r in rows.rows] + [(v, 1) for v in rows.vectors]
    }
    plans = {
        name: LayoutPlan(layout, ((0, 0),) * len(layout.order)) for name, layout in dense.items()
    }
    return RowsModel(RowsStructure(rows, ndim, dtype, dense), hidden, plans, constants)
