"""Specs a user writes for their own ops: list, tuple, None, dtype, str, bool and
float (NaN, inf) arguments, an optional tensor drawn as None, an ``out`` argument,
a program using the module's globals. The ops live in the sibling module."""

from __future__ import annotations

import torch
from argument_ops import pick, with_bias  # noqa: F401  (registers the ops)
from hypothesis import strategies as st

from torch_conformance.case import Buffer, Case, View
from torch_conformance.layouts import strided_layouts
from torch_conformance.reference import Expectation, exact
from torch_conformance.spec import Spec

ROWS = 2  # a module global the program reads under compile


@st.composite
def pick_cases(draw):
    sections = draw(st.lists(st.integers(1, 4), min_size=1, max_size=3))
    shape = (draw(st.integers(1, 4)), sum(sections))
    layout = draw(strided_layouts(shape))
    order = draw(st.none() | st.permutations(range(len(sections))).map(tuple))
    return Case(
        buffers={"x": Buffer(layout.buffer_shape, draw(st.sampled_from([torch.float32])))},
        args={
            "x": View("x", layout.ops),
            "sections": sections,
            "order": order,
            "dtype": draw(st.sampled_from([None, torch.float32, torch.bfloat16])),
            "fill": draw(st.sampled_from([float("nan"), float("inf"), -0.0, 1.5])),
            "where": draw(st.sampled_from(["first", "last"])),
            "flag": draw(st.booleans()),
        },
        seed=draw(st.integers(0, 2**32 - 1)),
    )


def pick_reference(x, sections, order, dtype, fill, where, flag):
    columns = [x[..., sum(sections[:i]) : sum(sections[: i + 1])] for i in range(len(sections))]
    if order is not None:
        columns = [columns[i] for i in order]
    out = torch.cat(columns, -1).to(dtype or x.dtype).double()
    out[..., 0 if where == "first" else -1] = fill
    return Expectation(outputs=(exact(-out if flag else out),))


def gathered(op, **args):
    """Data movement around the op, through a module global."""
    return op(**args).reshape(-1).repeat(ROWS)


@st.composite
def bias_cases(draw):
    rows = draw(st.integers(1, 4))
    x = draw(strided_layouts((rows, 3)))
    buffers = {"x": Buffer(x.buffer_shape, torch.float32)}
    args = {"x": View("x", x.ops), "bias": None}
    if draw(st.booleans()):
        buffers["bias"] = Buffer((rows, 2), torch.float32)
        args["bias"] = View("bias")
    return Case(buffers, args, seed=draw(st.integers(0, 2**32 - 1)))


def bias_reference(x, bias):
    out = x if bias is None else torch.cat([x, bias], -1)
    return Expectation(outputs=(exact(out),))


SPECS = [
    Spec(
        name="pick",
        op="user_args::pick",
        cases=pick_cases(),
        reference=pick_reference,
        program=gathered,
    ),
    Spec(
        name="with_bias",
        op="user_args::with_bias",
        cases=bias_cases(),
        reference=bias_reference,
    ),
]
