"""The ties between a recorded op's arguments: inferred from its calls, kept
in every Case drawn around them, and written by a user where the calls do
not show them."""

from __future__ import annotations

import dataclasses

import pytest
import torch
from hypothesis import given, settings

from torch_conformance.oracles.core.specification import SpecError
from torch_conformance.oracles.recording.calls import RecordedBuffer, RecordedCall, RecordedTensor
from torch_conformance.oracles.recording.cases import recorded_cases
from torch_conformance.oracles.recording.relations import infer, parse, places

FLOAT, INDEX = RecordedBuffer(torch.float32), torch.int64


def dense(buffer: int, *shape: int) -> RecordedTensor:
    strides = [1]
    for size in reversed(shape[1:]):
        strides.insert(0, strides[0] * size)
    return RecordedTensor(buffer, shape, tuple(strides), 0)


def grouped(tokens: int, dim: int, groups: int) -> RecordedCall:
    """x [T, D] with a per-group scale [T, G] and its group size D // G."""
    return RecordedCall(
        (FLOAT, FLOAT),
        (
            ("x", dense(0, tokens, dim)),
            ("scale", dense(1, tokens, groups)),
            ("group", dim // groups),
        ),
    )


def blocked(tokens: int, dim: int, block: int) -> RecordedCall:
    """An affine quantization's input [T, D], block size [1, B] and scale [T, D // B]."""
    return RecordedCall(
        (FLOAT, FLOAT),
        (
            ("input", dense(0, tokens, dim)),
            ("block_size", [1, block]),
            ("scale", dense(1, tokens, dim // block)),
        ),
    )


def gathered(rows: int, tokens: int, high: int) -> RecordedCall:
    """A table [N, 8] and T indices into it, the largest ``high``."""
    return RecordedCall(
        (FLOAT, RecordedBuffer(INDEX, 0, high)),
        (("table", dense(0, rows, 8)), ("indices", dense(1, tokens))),
    )


def drawn(calls, relations=(), resize=True, examples=150) -> list[dict]:
    seen: list[dict] = []

    @settings(max_examples=examples, database=None, derandomize=True)
    @given(recorded_cases(calls, relations, resize))
    def draw(case):
        # every view lies inside its buffer
        seen.append({**case.bind(case.allocate()), "label": case.label})

    draw()
    return seen


def test_a_group_count_stays_tied_to_its_dimension_and_group_size():
    calls = [grouped(4, 128, 4), grouped(8, 256, 8), grouped(3, 128, 8)]
    assert "x.shape[1] == group * scale.shape[1]" in map(str, infer(calls))
    cases = drawn(calls)
    for args in cases:
        assert args["x"].shape[0] == args["scale"].shape[0]
        assert args["x"].shape[1] == args["group"] * args["scale"].shape[1]
    shapes = {(tuple(a["x"].shape), tuple(a["scale"].shape)) for a in cases}
    assert len(shapes) > 10  # other token counts and group counts than recorded


def test_a_block_size_list_ties_the_scale_to_the_input():
    calls = [blocked(2, 64, 32), blocked(5, 128, 32), blocked(5, 128, 128)]
    assert "input.shape[1] == block_size[1] * scale.shape[1]" in map(str, infer(calls))
    cases = drawn(calls)
    for args in cases:
        assert args["input"].shape[1] == args["block_size"][1] * args["scale"].shape[1]
    assert len({tuple(a["input"].shape) for a in cases}) > 5


def test_a_table_keeps_more_rows_than_its_largest_index():
    calls = [gathered(16, 3, 15), gathered(32, 7, 20)]
    assert "table.shape[0] >= 1 + max(indices)" in map(str, infer(calls))
    cases = drawn(calls)
    for args in cases:
        assert args["table"].shape[0] > int(args["indices"].max())
    assert any(a["table"].shape[0] not in (16, 32) for a in cases)


def test_resize_false_keeps_every_recorded_size():
    calls = [grouped(4, 128, 4), grouped(8, 256, 8)]
    cases = drawn(calls, resize=False, examples=60)
    assert {tuple(a["x"].shape) for a in cases} == {(4, 128), (8, 256)}
    assert not any("resized" in a["label"] for a in cases)


def test_a_users_relation_is_kept_too():
    calls = [grouped(4, 128, 4), grouped(8, 256, 8)]
    known = {p for c in calls for p in places(c)}
    # The calls contradict it: no draw keeps it, so no size changes.
    never = parse("scale.shape[0] == 2 * x.shape[0]", known)
    assert not any("resized" in a["label"] for a in drawn(calls, [never], examples=60))


def test_a_relation_reads_back_as_written():
    calls = [blocked(2, 64, 32), blocked(5, 128, 32), gathered(16, 3, 15)]
    known = {p for c in calls for p in places(c)}
    for relation in infer(calls):
        assert parse(str(relation), known) == relation
    with pytest.raises(SpecError, match="`a % b == 0`"):
        parse("input.shape[1] < 3", known)
    with pytest.raises(SpecError, match="names weight.shape.0., which no recorded call has"):
        parse("weight.shape[0] == input.shape[0]", known)


def per_block(count: int, block: int, rows: int = 0) -> RecordedCall:
    """Quantized x (``[count]``, or ``[rows, count // rows]``) with one scale
    per block of ``block`` elements, the last block partial."""
    shape = (count,) if not rows else (rows, count // rows)
    return RecordedCall(
        (RecordedBuffer(torch.int8, -127, 127), FLOAT),
        (
            ("x", dense(0, *shape)),
            ("scales", dense(1, -(-count // block))),
            ("blocksize", block),
        ),
    )


def test_one_scale_per_block_is_a_ceil_division_kept_in_every_drawn_case():
    calls = [per_block(100, 32), per_block(100, 64), per_block(64, 32), per_block(7, 16)]
    assert "scales.shape[0] == ceil(x.shape[0] / blocksize)" in map(str, infer(calls))
    cases = drawn(calls)
    for args in cases:
        assert args["scales"].numel() == -(-args["x"].numel() // args["blocksize"])
    assert any("resized" in a["label"] for a in cases)
    assert len({a["x"].shape for a in cases}) > 5


def test_a_ceil_division_of_an_element_count():
    calls = [per_block(120, 32, rows=3), per_block(120, 16, rows=5), per_block(96, 32, rows=4)]
    assert "scales.shape[0] == ceil(x.numel() / blocksize)" in map(str, infer(calls))
    cases = drawn(calls)
    for args in cases:
        assert args["scales"].numel() == -(-args["x"].numel() // args["blocksize"])
    assert any("resized" in a["label"] for a in cases)


def test_relations_are_learnt_within_one_structure_of_the_calls():
    """Calls with a bias are 2-D, calls without are 1-D: a tie of the 2-D
    calls binds no 1-D one, and no drawn Case mixes the two."""
    plain = [per_block(100, 32), per_block(64, 32), per_block(7, 16)]
    biased = [
        dataclasses.replace(
            call, args=(*call.args, ("bias", dense(2, call.args[0][1].shape[1]))),
            buffers=(*call.buffers, FLOAT),
        )
        for call in (per_block(120, 32, rows=3), per_block(120, 16, rows=5))
    ]  # fmt: skip
    for args in drawn(plain + biased):
        assert ("bias" in args) == (args["x"].dim() == 2)
        if "bias" in args:
            assert args["bias"].shape[0] == args["x"].shape[1]


def test_a_place_that_is_always_zero_ties_nothing():
    calls = [
        RecordedCall((FLOAT,), (("x", dense(0, rows, 8)), ("device", 0))) for rows in (4, 6, 10)
    ]
    assert not [r for r in infer(calls) if "device" in str(r)]
    assert len({a["x"].shape for a in drawn(calls, examples=40)}) > 3


def jagged(lengths: list[int], width: int = 4) -> RecordedCall:
    """Values ``[sum(lengths), width]`` and the offsets of their segments."""
    ends = [0]
    for length in lengths:
        ends.append(ends[-1] + length)
    offsets = RecordedBuffer(INDEX, 0, ends[-1], data=tuple(ends))
    return RecordedCall(
        (FLOAT, offsets), (("values", dense(0, ends[-1], width)), ("offsets", dense(1, len(ends))))
    )


def test_offsets_rise_from_zero_to_the_values_length_in_every_drawn_case():
    calls = [jagged([3, 0, 5]), jagged([2, 2]), jagged([1, 4, 1, 6])]
    assert "offsets[-1] == values.shape[0]" in map(str, infer(calls))
    cases = drawn(calls)
    for args in cases:
        ends = args["offsets"].tolist()
        assert ends[0] == 0 and ends == sorted(ends) and ends[-1] == args["values"].shape[0]
    assert any("resized" in a["label"] for a in cases)
    # A recorded call replays with the offsets it was made with.
    recorded = [a["offsets"].tolist() for a in cases if a["label"] == "recorded call"]
    assert [0, 3, 3, 8] in recorded


def test_lengths_sum_to_the_values_length_in_every_drawn_case():
    calls = []
    for lengths in ([3, 0, 5], [2, 2], [1, 4, 1, 6]):
        kept = RecordedBuffer(INDEX, min(lengths), max(lengths), data=tuple(lengths))
        calls.append(
            RecordedCall(
                (FLOAT, kept),
                (("values", dense(0, sum(lengths), 4)), ("lengths", dense(1, len(lengths)))),
            )
        )
    assert "sum(lengths) == values.shape[0]" in map(str, infer(calls))
    cases = drawn(calls)
    for args in cases:
        assert int(args["lengths"].sum()) == args["values"].shape[0]
        assert int(args["lengths"].min()) >= 0
    assert any("resized" in a["label"] for a in cases)


def test_a_ceil_division_and_kept_values_read_back_as_written():
    calls = [jagged([3, 0, 5]), jagged([2, 2]), per_block(7, 16)]
    known = {p for c in calls for p in places(c)}
    for text in (
        "scales.shape[0] == ceil(x.shape[0] / blocksize)",
        "values.shape[0] == offsets[-1]",
        "values.numel() == 4 * offsets[-1]",
        "values.shape[0] == sum(offsets)",
    ):
        assert str(parse(text, known)) == text
