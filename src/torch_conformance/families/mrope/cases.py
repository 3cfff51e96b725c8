"""Hypothesis strategies for MRoPE Cases.

Sections are three positive counts summing to ``rotary_dim // 2``; the real
models' values are explicit examples. A selection Case passes ``x``, the
``[3, T, rotary_dim // 2]`` cos (or sin) half as model code slices it from
the gathered cache (``cache[..., :rotary_dim // 2]`` of ``[3, T,
rotary_dim]``, non-contiguous), or contiguous, or any strided view. A rotary
Case passes q and k as column slices of one packed qkv buffer, positions
``[3, T]`` (any strides; text tokens share one position row, a stride-0
broadcast) and the cos/sin cache.

As in the rope family, a Case is drawn in stages: a structure (what a
compiled program specializes on), a model (dimensions, sections, padding),
then the token count, cache length and values; a batch is many Cases of one
model.
"""

from __future__ import annotations

import dataclasses

import torch
from hypothesis import strategies as st

from torch_conformance.families.rope.cases import DTYPES, HEAD_SIZES
from torch_conformance.oracles.core.buffers import Buffer, Case, View
from torch_conformance.oracles.strategies.strided import (
    LayoutPlan,
    LayoutStructure,
    fused_columns,
    layout_plans,
    layout_structures,
)

# The real models' sections, by rotary_dim // 2 (see the brief).
MODEL_SECTIONS = {
    64: ((16, 24, 24), (24, 20, 20)),  # Qwen2-VL / 2.5-VL; Qwen3-VL
    32: ((8, 12, 12), (11, 11, 10)),  # GLM-4.1V; Qwen3.5
    39: ((13, 13, 13),),  # head 80, rotary 78
    5: ((3, 1, 1),),  # the upstream unit test
}
# cache_slice: the cos half of a [3, T, 2 * half] cache, at offset 0;
# cache_slice_sin: its sin half, at offset ``half``.
X_LAYOUTS = ("cache_slice", "cache_slice_sin", "contiguous", "strided")
MAX_TOKENS = 48


@st.composite
def mrope_sections(draw: st.DrawFn, half: int) -> tuple[int, ...]:
    """Three counts >= 1 summing to ``half`` (>= 3); a real model's where one fits."""
    known = MODEL_SECTIONS.get(half, ())
    if known and draw(st.booleans()):
        return draw(st.sampled_from(known))
    height = draw(st.integers(1, half - 2))
    width = draw(st.integers(1, half - 1 - height))
    return (half - height - width, height, width)


# --- section selection: op(x, mrope_section[, interleaved]) -----------------


@dataclasses.dataclass(frozen=True)
class SelectionModel:
    """What one compiled selection program serves: all but T and the values."""

    dtype: torch.dtype
    half: int
    mrope_section: tuple[int, ...]
    interleaved: bool | None  # None: the op takes no such argument
    layout: str
    plan: LayoutPlan | None  # strided layout only
    names: tuple[str, str] = ("x", "mrope_section")  # the op's names for x and the sections


@st.composite
def selection_models(
    draw: st.DrawFn, with_interleaved: bool, names: tuple[str, str] = ("x", "mrope_section")
) -> SelectionModel:
    half = draw(st.sampled_from((*MODEL_SECTIONS, *range(3, 12))))
    layout = draw(st.sampled_from(X_LAYOUTS))
    plan = None
    if layout == "strided":
        plan = draw(layout_structures(3, last_dim_contiguous=False).flatmap(layout_plans))
    return SelectionModel(
        dtype=draw(st.sampled_from(DTYPES)),
        half=half,
        mrope_section=draw(mrope_sections(half)),
        interleaved=draw(st.booleans()) if with_interleaved else None,
        layout=layout,
        plan=plan,
        names=names,
    )


def selection_case(m: SelectionModel, tokens: int, seed: int = 0, label: str = "") -> Case:
    shape = (3, tokens, m.half)
    if m.layout in ("cache_slice", "cache_slice_sin"):
        buffers = {"cache": Buffer((3, tokens, 2 * m.half), m.dtype)}
        start = 0 if m.layout == "cache_slice" else m.half
        x = View("cache", (("narrow", -1, start, m.half),))
    elif m.layout == "contiguous":
        buffers, x = {"cache": Buffer(shape, m.dtype)}, View("cache")
    else:
        layout = m.plan.of(shape)
        buffers, x = {"cache": Buffer(layout.buffer_shape, m.dtype)}, View("cache", layout.ops)
    x_name, section_name = m.names
    args = {x_name: x, section_name: list(m.mrope_section)}
    if m.interleaved is not None:
        args["interleaved"] = m.interleaved
    label = label or f"{m.layout} x, sections {m.mrope_section}"
    return Case(buffers, args, seed=seed, label=label)


@st.composite
def selection_cases_of(draw: st.DrawFn, m: SelectionModel) -> Case:
    tokens = draw(st.integers(1, MAX_TOKENS))
    return selection_case(m, tokens, draw(st.integers(0, 2**32 - 1)))


def selection_cases(
    with_interleaved: bool = False, names: tuple[str, str] = ("x", "mrope_section")
) -> st.SearchStrategy[Case]:
    """Cases for ``op(x, mrope_section)`` (and ``interleaved``, if the op takes
    it); ``names``: the op's own names for ``x`` and ``mrope_section``."""
    return selection_models(with_interleaved, names).flatmap(selection_cases_of)


def selection_batches(
    size: int, with_interleaved: bool = False, names: tuple[str, str] = ("x", "mrope_section")
) -> st.SearchStrategy[list[Case]]:
    return selection_models(with_interleaved, names).flatmap(
        lambda m: st.lists(selection_cases_of(m), min_size=size, max_size=size)
    )


def selection_examples(with_interleaved: bool = False) -> tuple[Case, ...]:
    """Seed 004's upstream test (Qwen3-VL sections, 8192 bf16 tokens, ``x =
    cache[..., :64]`` of ``[3, 8192, 128]``) and the upstream unit test's
    ``[3, 1, 1]`` on ``[3, 2, 5]``."""
    interleaved = True if with_interleaved else None
    seed = SelectionModel(torch.bfloat16, 64, (24, 20, 20), interleaved, "cache_slice", None)
    unit = SelectionModel(torch.float32, 5, (3, 1, 1), interleaved, "contiguous", None)
    return (
        selection_case(seed, 8192, label="seed 004: cache[..., :64] of [3, 8192, 128]"),
        selection_case(unit, 2, label="upstream unit test: [3, 2, 5]"),
    )


# --- the rotary op: op(positions, query, key, head_size, cos_sin_cache,
#     mrope_section, interleaved, is_neox), q and k rotated in place --------


@dataclasses.dataclass(frozen=True)
class MRopeStructure:
    head_size: int
    interleaved: bool
    is_neox: bool
    dtype: torch.dtype
    qkv_gap: bool  # columns after v, so k's neighbour is not the row's end
    positions: LayoutStructure
    cache: LayoutStructure


@st.composite
def mrope_structures(draw: st.DrawFn) -> MRopeStructure:
    return MRopeStructure(
        head_size=draw(st.sampled_from(HEAD_SIZES)),
        interleaved=draw(st.booleans()),
        is_neox=draw(st.booleans()),
        dtype=draw(st.sampled_from(DTYPES)),
        qkv_gap=draw(st.booleans()),
        positions=draw(layout_structures(2, last_dim_contiguous=False, allow_broadcast=True)),
        cache=draw(layout_structures(2, last_dim_contiguous=False)),
    )


@dataclasses.dataclass(frozen=True)
class MRopeModel:
    """A model's dimensions, sections and padding: its Cases differ in T,
    the cache length and the values."""

    structure: MRopeStructure
    num_heads: int
    num_kv_heads: int
    rotary_dim: int
    mrope_section: tuple[int, ...]
    qkv_gap: int
    positions: LayoutPlan
    cache: LayoutPlan


@st.composite
def mrope_models(draw: st.DrawFn, s: MRopeStructure) -> MRopeModel:
    # Full rotary, a real model's rotary width (64 of 128 or 256, 78 of 80),
    # or any even width.
    model_widths = [2 * half for half in MODEL_SECTIONS if 2 * half <= s.head_size]
    rotary_dim = draw(
        st.one_of(
            st.just(s.head_size),
            st.sampled_from(model_widths),
            st.integers(3, s.head_size // 2).map(lambda half: 2 * half),
        )
    )
    num_kv_heads = draw(st.integers(1, 4))
    return MRopeModel(
        structure=s,
        num_heads=num_kv_heads * draw(st.sampled_from((1, 2, 4))),
        num_kv_heads=num_kv_heads,
        rotary_dim=rotary_dim,
        mrope_section=draw(mrope_sections(rotary_dim // 2)),
        qkv_gap=draw(st.sampled_from((1, 8))) if s.qkv_gap else 0,
        positions=draw(layout_plans(s.positions)),
        cache=draw(layout_plans(s.cache)),
    )


def mrope_case(
    m: MRopeModel, tokens: int, max_position: int, seed: int = 0, label: str = ""
) -> Case:
    s = m.structure
    query, key, _ = fused_columns(
        (tokens,),
        [h * s.head_size for h in (m.num_heads, m.num_kv_heads, m.num_kv_heads)],
        gap=m.qkv_gap,
    )
    positions = m.positions.of((3, tokens))
    cache = m.cache.of((max_position, m.rotary_dim))
    buffers = {
        "qkv": Buffer(query.buffer_shape, s.dtype),
        "positions": Buffer(positions.buffer_shape, torch.int64, ("randint", 0, max_position)),
        "cos_sin_cache": Buffer(cache.buffer_shape, s.dtype),
    }
    args = {
        "positions": View("positions", positions.ops),
        "query": View("qkv", query.ops),
        "key": View("qkv", key.ops),
        "head_size": s.head_size,
        "cos_sin_cache": View("cos_sin_cache", cache.ops),
        "mrope_section": list(m.mrope_section),
        "interleaved": s.interleaved,
        "is_neox": s.is_neox,
    }
    style = "interleaved" if s.interleaved else "chunked"
    label = label or f"{style} sections {m.mrope_section}, {'neox' if s.is_neox else 'gpt-j'}"
    return Case(buffers, args, seed=seed, label=label)


@st.composite
def mrope_cases_of(draw: st.DrawFn, m: MRopeModel) -> Case:
    tokens = draw(st.integers(1, MAX_TOKENS))
    max_position = draw(st.integers(1, 512))
    return mrope_case(m, tokens, max_position, draw(st.integers(0, 2**32 - 1)))


def mrope_cases() -> st.SearchStrategy[Case]:
    return mrope_structures().flatmap(mrope_models).flatmap(mrope_cases_of)


def mrope_batches(size: int) -> st.SearchStrategy[list[Case]]:
    return (
        mrope_structures()
        .flatmap(mrope_models)
        .flatmap(lambda m: st.lists(mrope_cases_of(m), min_size=size, max_size=size))
    )


def _dense(ndim: int) -> LayoutStructure:
    return LayoutStructure(tuple(range(ndim)), (False,) * ndim, frozenset())


def model_case(
    name: str,
    *,
    heads: tuple[int, int],
    head_size: int,
    rotary_dim: int,
    mrope_section: tuple[int, ...],
    interleaved: bool,
    is_neox: bool = True,
    tokens: int = 7,
) -> Case:
    """A real model's call: q and k of a packed qkv buffer, dense positions
    and cache, bf16, a token count that is not a multiple of a block."""
    structure = MRopeStructure(
        head_size, interleaved, is_neox, torch.bfloat16, False, _dense(2), _dense(2)
    )
    dense = LayoutPlan(_dense(2), ((0, 0), (0, 0)))
    model = MRopeModel(structure, *heads, rotary_dim, mrope_section, 0, dense, dense)
    return mrope_case(model, tokens, 4096, label=name)


MODEL_CASES = (
    model_case(
        "Qwen2-VL", heads=(28, 4), head_size=128, rotary_dim=128,
        mrope_section=(16, 24, 24), interleaved=False,
    ),
    model_case(
        "Qwen3-VL", heads=(32, 8), head_size=128, rotary_dim=128,
        mrope_section=(24, 20, 20), interleaved=True,
    ),
    model_case(
        "GLM-4.1V", heads=(12, 2), head_size=128, rotary_dim=64,
        mrope_section=(8, 12, 12), interleaved=False, is_neox=False,
    ),
    model_case(
        "Qwen3.5", heads=(16, 2), head_size=256, rotary_dim=64,
        mrope_section=(11, 11, 10), interleaved=True,
    ),
    model_case(
        "upstream test: 16 heads of 80, rotary 78", heads=(16, 16), head_size=80,
        rotary_dim=78, mrope_section=(13, 13, 13), interleaved=True,
    ),
)  # fmt: skip
