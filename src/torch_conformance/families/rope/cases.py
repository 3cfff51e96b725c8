"""Hypothesis strategies for rotary-embedding Cases.

A Case draws token counts (1 included), batch and sequence, head counts with
GQA ratios, head sizes and rotary dims, neox or gpt-j pairing, the dtype,
positions, a cos/sin cache and a layout: contiguous buffers, column slices of
a fused QKV buffer (``qkv.split(...)``), or independently strided views with
gaps, permuted heads and storage offsets; 2-D ``[T, H*D]``, 3-D ``[T, H, D]``
or 4-D ``[B, S, H, D]``.

A Case is drawn in three stages: a RopeStructure (what any compiled program
specializes on), a RopeModel (the model's dimensions and padding, constants
in a serving stack's compiled code), then token counts, cache length and
values. A batch is many Cases of one RopeModel.
"""

from __future__ import annotations

import dataclasses

import torch
from hypothesis import strategies as st

from torch_conformance.oracles.core.buffers import Buffer, Case, View
from torch_conformance.oracles.core.kernel_domain import Domain
from torch_conformance.oracles.strategies.strided import (
    LayoutPlan,
    LayoutStructure,
    fused_columns,
    layout_plans,
    layout_structures,
)

HEAD_SIZES = (64, 80, 128, 256)
DTYPES = (torch.float32, torch.bfloat16, torch.float16)
LAYOUTS = ("contiguous", "fused_qkv", "strided")


@dataclasses.dataclass(frozen=True)
class RopeParams:
    ndim: int
    tokens: tuple[int, ...]  # (T,) or (B, S)
    num_heads: int
    num_kv_heads: int
    head_size: int
    rotary_dim: int
    is_neox: bool
    dtype: torch.dtype
    max_position: int

    def heads_shape(self, heads: int) -> tuple[int, ...]:
        if self.ndim == 2:
            return (*self.tokens, heads * self.head_size)
        return (*self.tokens, heads, self.head_size)


@dataclasses.dataclass(frozen=True)
class RopeStructure:
    """What a rope Case fixes apart from sizes: one compiled program serves it."""

    ndim: int
    head_size: int
    is_neox: bool
    dtype: torch.dtype
    layout: str
    qkv_gap: bool  # fused_qkv: columns after v, so k's neighbour is not the row's end
    query: LayoutStructure | None  # strided layout only
    key: LayoutStructure | None
    positions: LayoutStructure
    cache: LayoutStructure
    without_key: bool = False  # key passed as None (an optional key)


@dataclasses.dataclass(frozen=True)
class RopeDomain:
    """What a rope strategy may draw; ``within(domain)`` narrows it to a
    kernel's declared Domain."""

    ndims: tuple[int, ...] = (2, 3, 4)
    layouts: tuple[str, ...] = LAYOUTS
    dtypes: tuple[torch.dtype, ...] = DTYPES
    optional_key: bool = False  # the op takes key=None
    contiguous: frozenset[str] = frozenset()  # arguments drawn contiguous

    def within(self, domain: Domain | None) -> RopeDomain:
        if domain is None:
            return self
        contiguous = frozenset(domain.contiguous)
        layouts = self.layouts
        if {"query", "key"} & contiguous:
            layouts = ("contiguous",)
        return dataclasses.replace(
            self,
            ndims=tuple(n for n in self.ndims if n in domain.ranks.get("query", self.ndims)),
            layouts=layouts,
            dtypes=tuple(d for d in self.dtypes if d in (domain.dtypes or self.dtypes)),
            contiguous=self.contiguous | contiguous,
        )


def _argument_layout(draw: st.DrawFn, name: str, ndim: int, d: RopeDomain, **flags):
    if name in d.contiguous:
        return LayoutStructure(tuple(range(ndim)), (False,) * ndim, frozenset())
    return draw(layout_structures(ndim, **flags))


@st.composite
def rope_structures(draw: st.DrawFn, d: RopeDomain = RopeDomain()) -> RopeStructure:
    ndim = draw(st.sampled_from(d.ndims))
    layout = draw(st.sampled_from(d.layouts))
    strided = layout == "strided"
    return RopeStructure(
        ndim=ndim,
        head_size=draw(st.sampled_from(HEAD_SIZES)),
        is_neox=draw(st.booleans()),
        dtype=draw(st.sampled_from(d.dtypes)),
        layout=layout,
        qkv_gap=layout == "fused_qkv" and draw(st.booleans()),
        query=draw(layout_structures(ndim)) if strided else None,
        key=draw(layout_structures(ndim)) if strided else None,
        positions=_argument_layout(
            draw,
            "positions",
            2 if ndim == 4 else 1,
            d,
            last_dim_contiguous=False,
            allow_broadcast=True,
        ),
        cache=_argument_layout(draw, "cos_sin_cache", 2, d, last_dim_contiguous=False),
        without_key=d.optional_key and draw(st.booleans()),
    )


@dataclasses.dataclass(frozen=True)
class RopeModel:
    """A RopeStructure with a model's dimensions and padding drawn.

    What a serving stack compiles as constants: head counts, rotary dim, the
    fused QKV buffer's gap, each view's padding. Its Cases differ in token
    counts, cache length and values, as a model's calls do.
    """

    structure: RopeStructure
    num_heads: int
    num_kv_heads: int
    rotary_dim: int
    qkv_gap: int
    query: LayoutPlan | None  # strided layout only
    key: LayoutPlan | None
    positions: LayoutPlan
    cache: LayoutPlan


@st.composite
def rope_models(draw: st.DrawFn, s: RopeStructure) -> RopeModel:
    rotary_dim = draw(
        st.one_of(
            st.just(s.head_size),
            st.integers(1, s.head_size // 2).map(lambda half: 2 * half),
        )
    )
    num_kv_heads = draw(st.integers(1, 4))
    return RopeModel(
        structure=s,
        num_heads=num_kv_heads * draw(st.sampled_from((1, 2, 4))),
        num_kv_heads=num_kv_heads,
        rotary_dim=rotary_dim,
        qkv_gap=draw(st.sampled_from((1, 8))) if s.qkv_gap else 0,
        query=draw(layout_plans(s.query)) if s.query else None,
        key=draw(layout_plans(s.key)) if s.key else None,
        positions=draw(layout_plans(s.positions)),
        cache=draw(layout_plans(s.cache)),
    )


def _fused_qkv(p: RopeParams, gap: int) -> tuple[dict, dict]:
    """q and k as column slices of one ``[..., (Hq + 2 Hkv) D (+ gap)]`` buffer."""
    heads = (p.num_heads, p.num_kv_heads, p.num_kv_heads)
    query, key, _ = fused_columns(
        p.tokens,
        [h * p.head_size for h in heads],
        gap=gap,
        shapes=[p.heads_shape(h) if p.ndim > 2 else None for h in heads],
    )
    buffers = {"qkv": Buffer(query.buffer_shape, p.dtype)}
    return buffers, {"query": View("qkv", query.ops), "key": View("qkv", key.ops)}


def _qk_views(m: RopeModel, p: RopeParams) -> tuple[dict, dict]:
    if m.structure.layout == "fused_qkv":
        return _fused_qkv(p, m.qkv_gap)
    buffers, views = {}, {}
    for name, heads, plan in (
        ("query", p.num_heads, m.query),
        ("key", p.num_kv_heads, m.key),
    ):
        shape = p.heads_shape(heads)
        if plan is None:
            buffers[name] = Buffer(shape, p.dtype)
            views[name] = View(name)
        else:
            strided = plan.of(shape)
            buffers[name] = Buffer(strided.buffer_shape, p.dtype)
            views[name] = View(name, strided.ops)
    return buffers, views


@st.composite
def rope_cases_of(draw: st.DrawFn, m: RopeModel) -> Case:
    """Cases of one RopeModel: token counts, cache length and values drawn."""
    s = m.structure
    if s.ndim == 4:
        tokens = (draw(st.integers(1, 3)), draw(st.integers(1, 8)))
    else:
        tokens = (draw(st.integers(1, 48)),)
    p = RopeParams(
        ndim=s.ndim,
        tokens=tokens,
        num_heads=m.num_heads,
        num_kv_heads=m.num_kv_heads,
        head_size=s.head_size,
        rotary_dim=m.rotary_dim,
        is_neox=s.is_neox,
        dtype=s.dtype,
        max_position=draw(st.integers(1, 512)),
    )
    buffers, views = _qk_views(m, p)
    positions = m.positions.of(p.tokens)
    buffers["positions"] = Buffer(
        positions.buffer_shape, torch.int64, ("randint", 0, p.max_position)
    )
    cache = m.cache.of((p.max_position, p.rotary_dim))
    buffers["cos_sin_cache"] = Buffer(cache.buffer_shape, p.dtype)
    if s.without_key:
        buffers.pop("key", None)
    args = {
        "positions": View("positions", positions.ops),
        "query": views["query"],
        "key": None if s.without_key else views["key"],
        "head_size": p.head_size,
        "cos_sin_cache": View("cos_sin_cache", cache.ops),
        "is_neox": p.is_neox,
    }
    seed = draw(st.integers(0, 2**32 - 1))
    label = f"{p.ndim}-D {s.layout}" + (" without key" if s.without_key else "")
    return Case(buffers, args, seed=seed, label=label)


def _inside(strategy: st.SearchStrategy, domain: Domain | None, cases=lambda x: [x]):
    """The draws of ``strategy`` inside ``domain``'s rules the layouts cannot express."""
    if domain is None or domain.rule is None:
        return strategy
    return strategy.filter(lambda drawn: not any(domain.violations(c) for c in cases(drawn)))


def rope_cases(
    ndims: tuple[int, ...] = (2, 3, 4),
    layouts: tuple[str, ...] = LAYOUTS,
    *,
    optional_key: bool = False,
    domain: Domain | None = None,
) -> st.SearchStrategy[Case]:
    """Cases for ``op(positions, query, key, head_size, cos_sin_cache, is_neox)``;
    ``optional_key``: key is sometimes None; ``domain``: only Cases inside it."""
    d = RopeDomain(ndims, layouts, optional_key=optional_key).within(domain)
    return _inside(rope_structures(d).flatmap(rope_models).flatmap(rope_cases_of), domain)


def rope_batches(
    size: int,
    ndims: tuple[int, ...] = (2, 3, 4),
    layouts: tuple[str, ...] = LAYOUTS,
    *,
    optional_key: bool = False,
    domain: Domain | None = None,
) -> st.SearchStrategy[list[Case]]:
    """Batches of ``size`` Cases of one RopeModel, which one compiled program serves."""
    d = RopeDomain(ndims, layouts, optional_key=optional_key).within(domain)
    batches = (
        rope_structures(d)
        .flatmap(rope_models)
        .flatmap(lambda m: st.lists(rope_cases_of(m), min_size=size, max_size=size))
    )
    return _inside(batches, domain, cases=lambda batch: batch)


def fused_qkv_seed_case() -> Case:
    """The seed's model: 32 tokens, 32 query and 8 KV heads of 128, qkv width 6144."""
    p = RopeParams(
        ndim=2,
        tokens=(32,),
        num_heads=32,
        num_kv_heads=8,
        head_size=128,
        rotary_dim=128,
        is_neox=True,
        dtype=torch.bfloat16,
        max_position=4096,
    )
    buffers, views = _fused_qkv(p, gap=0)
    buffers["positions"] = Buffer((32,), torch.int64, ("randint", 0, 4096))
    buffers["cos_sin_cache"] = Buffer((4096, 128), torch.bfloat16)
    args = {
        "positions": View("positions"),
        "query": views["query"],
        "key": views["key"],
        "head_size": 128,
        "cos_sin_cache": View("cos_sin_cache"),
        "is_neox": True,
    }
    return Case(buffers, args, seed=0, label="seed fused-QKV model")
