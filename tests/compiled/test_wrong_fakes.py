"""Wrong fakes that only a compiled program's use of the outputs shows.

With Inductor's size asserts off, nothing checks what a fake claims of an
output; the default program (``read_outputs``) reads each output as the next
layer of model code does, so a fake's wrong stride, shape or dtype gives
wrong values or metadata in ``inductor_no_size_asserts``. The same ops with
right fakes stay silent.

A wrong storage offset of a fresh output is the exception: Inductor indexes
an op's output from its own data pointer and rebases views of it
(``reinterpret_tensor``) on its real offset, so no compiled program depends
on the claimed one; the fake check reports it.
"""

from __future__ import annotations

import dataclasses

import pytest
import torch
from hypothesis import strategies as st

from torch_conformance.oracles.checks.compiled import check_compiled
from torch_conformance.oracles.checks.fake import check_fake
from torch_conformance.oracles.core.buffers import Buffer, Case, View
from torch_conformance.oracles.core.specification import Spec
from torch_conformance.oracles.modes.compiled import COMPILED

NO_SIZE_ASSERTS = COMPILED["inductor_no_size_asserts"]
LIB = torch.library.Library("conformance_wrong_fakes", "DEF")  # noqa: TID251 - the test's own ops
for schema in (
    "offset(Tensor x) -> Tensor",
    "transposed(Tensor x) -> Tensor",
    "gathered(Tensor x, Tensor index) -> Tensor",
    "widened(Tensor x) -> Tensor",
):
    LIB.define(schema)


def _offset(x: torch.Tensor) -> torch.Tensor:
    # A fresh tensor at storage offset 4 of a larger allocation.
    out = torch.empty(x.numel() + 4, dtype=x.dtype)[4:].view(x.shape)
    return out.copy_(x * 2)


def _transposed(x: torch.Tensor) -> torch.Tensor:
    # A fresh tensor laid out column-major.
    return (x * 2).t().contiguous().t()


def _gathered(x: torch.Tensor, index: torch.Tensor) -> torch.Tensor:
    return x.index_select(0, index)


def _widened(x: torch.Tensor) -> torch.Tensor:
    return x * 2


KERNELS = {"offset": _offset, "transposed": _transposed, "gathered": _gathered, "widened": _widened}
for name, kernel in KERNELS.items():
    LIB.impl(name, kernel, "CompositeExplicitAutograd")

# Right fakes, and each op's wrong one: offset 0, row-major strides, one row
# too few, float32 for a bfloat16 output.
RIGHT = {
    "offset": lambda x: torch.empty(x.numel() + 4, dtype=x.dtype)[4:].view(x.shape),
    "transposed": lambda x: torch.empty(x.t().shape, dtype=x.dtype).t(),
    "gathered": lambda x, index: x.new_empty((index.shape[0], *x.shape[1:])),
    "widened": lambda x: torch.empty_like(x),
}
WRONG = {
    "offset": lambda x: torch.empty_like(x),
    "transposed": lambda x: torch.empty_like(x),
    "gathered": lambda x, index: x.new_empty((index.shape[0] - 1, *x.shape[1:])),
    "widened": lambda x: torch.empty(x.shape, dtype=torch.float32),
}


def _case(name: str) -> Case:
    dtype = {"widened": torch.bfloat16, "transposed": torch.float16}.get(name, torch.float32)
    buffers = {"b": Buffer((4, 6), dtype)}
    args = {"x": View("b")}
    if name == "gathered":
        buffers["i"] = Buffer((3,), torch.int64, ("randint", 0, 4))
        args["index"] = View("i")
    return Case(buffers, args, 1)


def _findings(name: str, fake) -> list:
    spec = Spec(name, f"conformance_wrong_fakes::{name}", st.just(_case(name)), None, fake=fake)
    with spec.installed():
        return check_compiled(spec, _case(name), None, NO_SIZE_ASSERTS)


@pytest.mark.parametrize("name", ["transposed", "gathered", "widened"])
def test_a_wrong_fake_gives_wrong_values_or_metadata_without_size_asserts(name: str) -> None:
    found = _findings(name, WRONG[name])
    assert {f.verdict for f in found if f.blocking} & {"values", "metadata"}, found
    assert _findings(name, RIGHT[name]) == []


def test_a_wrong_offset_of_a_fresh_output_is_the_fake_checks_to_report() -> None:
    assert _findings("offset", WRONG["offset"]) == []
    spec = Spec("offset", "conformance_wrong_fakes::offset", st.just(_case("offset")), None)
    with dataclasses.replace(spec, fake=WRONG["offset"]).installed():
        found = check_fake(spec, _case("offset"))
    assert "out[0].storage_offset()=0 in the fake, but the real kernel gives 4" in str(found)
