"""Cases made from recorded calls: as recorded, and around them."""

from __future__ import annotations

import dataclasses

import torch
from hypothesis import given, settings

from torch_conformance.oracles.recording.calls import (
    RecordedBuffer,
    RecordedCall,
    RecordedTensor,
    _decode_call,
    encode_call,
)
from torch_conformance.oracles.recording.cases import case_of, recorded_cases
from torch_conformance.oracles.recording.relations import NUMEL, Place, varied


def rope_call(tokens: int) -> RecordedCall:
    """q and k column slices of one [T, 128] qkv buffer, positions and a cache."""
    return RecordedCall(
        (
            RecordedBuffer(torch.int64, 0, 99),
            RecordedBuffer(torch.float32),
            RecordedBuffer(torch.float32),
        ),
        (
            ("positions", RecordedTensor(0, (tokens,), (1,), 0)),
            ("query", RecordedTensor(1, (tokens, 64), (128, 1), 0)),
            ("key", RecordedTensor(1, (tokens, 32), (128, 1), 64)),
            ("head_size", 16),
            ("cos_sin_cache", RecordedTensor(2, (100, 16), (16, 1), 0)),
        ),
    )


def meta_args(case):
    return case.bind(case.meta_buffers())


def test_a_recorded_call_keeps_its_layout_and_shared_buffer():
    case = case_of(rope_call(7))
    args = meta_args(case)
    assert case.args["query"].buffer == case.args["key"].buffer  # one qkv buffer
    assert case.buffers[case.args["query"].buffer].shape == (6 * 128 + 96,)
    assert (args["query"].stride(), args["key"].storage_offset()) == ((128, 1), 64)
    assert case.args["positions"].ops == ()  # dense and alone: a plain buffer
    assert case.buffers["positions"].fill == ("randint", 0, 100)
    assert args["head_size"] == 16


def test_only_what_varied_between_calls_is_drawn_again():
    calls = [rope_call(7), rope_call(3)]
    sizes = {Place("positions", 0, 0), Place("query", 0, 0), Place("key", 0, 0)}
    counts = {Place("query", 0, NUMEL), Place("key", 0, NUMEL)}
    assert varied(calls) == sizes | counts
    tokens_seen = set()

    @settings(max_examples=60, database=None, derandomize=True)
    @given(recorded_cases(calls))
    def check(case):
        args = meta_args(case)
        tokens = args["positions"].shape[0]
        tokens_seen.add(tokens)
        # The token count changes together in every argument that had it;
        # the cache, which never changed, keeps its shape; strides stay.
        assert args["query"].shape == (tokens, 64) and args["key"].shape == (tokens, 32)
        assert args["query"].stride() == args["key"].stride() == (128, 1)
        assert args["cos_sin_cache"].shape == (100, 16)
        assert args["key"].storage_offset() - args["query"].storage_offset() == 64
        case.bind(case.allocate())  # every view lies inside its buffer

    check()
    assert len(tokens_seen) > 3  # other token counts than the recorded 7 and 3


def test_a_call_recorded_on_cuda_keeps_its_device_and_a_cpu_call_says_nothing():
    cpu = rope_call(7)
    on_cuda = dataclasses.replace(
        cpu, buffers=tuple(dataclasses.replace(b, device="cuda:0") for b in cpu.buffers)
    )
    assert all("device" not in buffer for buffer in encode_call(cpu)["buffers"])
    assert _decode_call(encode_call(on_cuda)) == on_cuda
    assert (cpu.device, on_cuda.device) == ("cpu", "cuda:0")
    assert case_of(on_cuda).device == "cuda:0" and case_of(cpu).device == "cpu"
