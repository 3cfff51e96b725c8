"""The MRoPE family: its strategies, its kernels, its zoo and seed 004's fault."""

from __future__ import annotations

import dataclasses
import re

import pytest
import torch
from hypothesis import find, given, settings

from tests.zoo_helpers import CI, failure, needs_kernels, passes, zoo_spec
from torch_conformance.families.mrope import cases as mrope_cases
from torch_conformance.families.mrope import ops, reference
from torch_conformance.families.mrope.faults import SHIFTED_SLICE_SCATTER
from torch_conformance.families.rope.triton_kernels import BLOCK_T
from torch_conformance.kernels import triton as triton_kernels
from torch_conformance.oracles.core.buffers import Case
from torch_conformance.oracles.core.findings import CheckFailure
from torch_conformance.oracles.core.specification import Unavailable
from torch_conformance.oracles.runner import property as properties
from torch_conformance.oracles.runner.property import run_property
from torch_conformance.suites.catalog import builtin_specs, fault_modes
from torch_conformance.suites.policy import selected_modes

FIND = settings(max_examples=3000, derandomize=True, database=None)
# For the slow Modes (compiles, Triton's interpreter): fewer Cases than the gate.
QUICK = settings(CI, max_examples=20)
needs_triton = pytest.mark.skipif(
    triton_kernels.unavailable() is not None, reason=f"{triton_kernels.unavailable()}"
)


def catalog(name: str):
    [spec] = [s for s in builtin_specs() if s.name == name]
    return spec


def bound(case: Case) -> dict:
    return case.bind(case.allocate())


# --- strategies --------------------------------------------------------------


@settings(max_examples=100)
@given(case=mrope_cases.mrope_cases())
def test_rotary_cases_are_valid_kernel_inputs(case):
    args = bound(case)
    query, key, positions, cache = (args[n] for n in ("query", "key", "positions", "cos_sin_cache"))
    half = cache.shape[1] // 2
    assert sum(args["mrope_section"]) == half and min(args["mrope_section"]) >= 1
    assert positions.shape == (3, query.shape[0]) and positions.dtype == torch.int64
    assert int(positions.min()) >= 0 and int(positions.max()) < cache.shape[0]
    assert query.shape[1] % args["head_size"] == 0 and key.shape[1] % args["head_size"] == 0
    # q and k are column slices of one packed qkv buffer.
    assert query.untyped_storage().data_ptr() == key.untyped_storage().data_ptr()
    assert query.stride(-1) == key.stride(-1) == 1


@settings(max_examples=100)
@given(case=mrope_cases.selection_cases(with_interleaved=True))
def test_selection_cases_pass_three_rows_of_half_the_rotary_width(case):
    args = bound(case)
    assert args["x"].shape[0] == 3
    assert sum(args["mrope_section"]) == args["x"].shape[2]


def test_the_cache_slice_is_either_half_and_the_argument_names_are_the_ops():
    for start in (0, 5):
        find(
            mrope_cases.selection_cases(),
            lambda c, s=start: (
                bound(c)["x"].storage_offset() == s and c.buffers["cache"].shape[2] == 10
            ),
            settings=FIND,
        )
    case = find(mrope_cases.selection_cases(names=("positions_x", "sections")), lambda c: True)
    assert set(case.args) == {"positions_x", "sections"}


def test_every_real_models_sections_are_drawn():
    for known in mrope_cases.MODEL_SECTIONS.values():
        for section in known:
            find(
                mrope_cases.mrope_cases(),
                lambda c, s=section: tuple(c.args["mrope_section"]) == s,
                settings=FIND,
            )
            find(
                mrope_cases.selection_cases(),
                lambda c, s=section: tuple(c.args["mrope_section"]) == s,
                settings=FIND,
            )


def test_token_counts_off_the_triton_block_and_the_upstream_slice_are_drawn():
    odd = find(
        mrope_cases.mrope_cases(),
        lambda c: bound(c)["query"].shape[0] % BLOCK_T != 0,
        settings=FIND,
    )
    assert bound(odd)["query"].shape[0] % BLOCK_T
    sliced = find(
        mrope_cases.selection_cases(),
        lambda c: not bound(c)["x"].is_contiguous() and c.buffers["cache"].shape[-1] > 3,
        settings=FIND,
    )
    x = bound(sliced)["x"]
    assert x.stride(1) == 2 * x.shape[2]  # cache[..., :rotary_dim // 2] of [3, T, rotary_dim]


def test_seed_004_upstream_test_is_an_explicit_example():
    [seed, unit] = mrope_cases.selection_examples()
    x = bound(seed)["x"]
    assert (x.shape, x.stride(), x.dtype) == ((3, 8192, 64), (8192 * 128, 128, 1), torch.bfloat16)
    assert seed.args["mrope_section"] == [24, 20, 20]
    assert bound(unit)["x"].shape == (3, 2, 5) and unit.args["mrope_section"] == [3, 1, 1]


# --- the selections ----------------------------------------------------------


def test_the_three_forms_and_the_reference_agree_bit_for_bit():
    for half, known in mrope_cases.MODEL_SECTIONS.items():
        for section in known:
            x = torch.randn(3, 7, 2 * half)[..., :half]
            want = reference.select(x, list(section), True).to(x.dtype)
            for form in (ops.apply_interleaved_rope_slices, ops.apply_interleaved_rope_where):
                assert torch.equal(form(x, list(section)), want)
            chunked = reference.select(x, list(section), False).to(x.dtype)
            assert torch.equal(ops.apply_chunked_sections(x, list(section)), chunked)


def test_section_rows_follow_the_definition():
    # Qwen3-VL: channels 1, 4, ..., 58 are height, 2, 5, ..., 59 width.
    rows = ops.section_rows([24, 20, 20], 64, True, torch.device("cpu"))
    assert rows.tolist() == reference.channel_rows([24, 20, 20], 64, True).tolist()
    assert rows[:6].tolist() == [0, 1, 2, 0, 1, 2] and rows[60:].tolist() == [0, 0, 0, 0]
    chunked = ops.section_rows([16, 24, 24], 64, False, torch.device("cpu"))
    assert chunked.tolist() == [0] * 16 + [1] * 24 + [2] * 24


# --- the kernels -------------------------------------------------------------


@needs_kernels
@needs_triton
@pytest.mark.parametrize("dtype", [torch.float32, torch.float16])
def test_the_cpp_and_triton_kernels_agree_bit_for_bit(dtype):
    # Both compute in float32 and round once; bf16 differs (see the next test).
    from torch_conformance.families.mrope import triton_ops

    catalog("mrope_rotary_embedding").prepare()
    triton_ops.register_triton()
    for case in mrope_cases.MODEL_CASES:
        case = dataclasses.replace(
            case,
            buffers={
                n: dataclasses.replace(b, dtype=dtype) if b.dtype.is_floating_point else b
                for n, b in case.buffers.items()
            },
        )
        cpp, tri = bound(case), bound(case)
        torch.ops.conformance.mrope_rotary_embedding(**cpp)
        torch.ops.conformance.mrope_rotary_embedding_triton(**tri)
        assert torch.equal(cpp["query"], tri["query"]) and torch.equal(cpp["key"], tri["key"])


@needs_triton
def test_the_triton_interpreter_rounds_float32_to_bfloat16_toward_zero():
    # Triton's interpreter casts float32 to bfloat16 by truncation (torch and
    # the C++ kernels round to nearest), so the Triton specs' bf16 results
    # can sit one ULP from the C++ ones: the ULP budget against float64
    # covers both. This test fails when a Triton release changes it.
    import triton
    import triton.language as tl

    @triton.jit
    def cast(x_ptr, y_ptr, N: tl.constexpr):
        offsets = tl.arange(0, N)
        tl.store(y_ptr + offsets, tl.load(x_ptr + offsets).to(tl.bfloat16))

    x = torch.tensor([1.01171875, -1.01171875, 1.0 + 2**-8 + 2**-12, 3.0], dtype=torch.float32)
    y = torch.empty(4, dtype=torch.bfloat16)
    cast[(1,)](x, y, N=4)
    assert y.tolist() == [1.0078125, -1.0078125, 1.0, 3.0]
    assert x.to(torch.bfloat16).tolist() == [1.015625, -1.015625, 1.0078125, 3.0]


def test_native_triton_specs_skip_with_the_reason_where_they_cannot_run():
    for name in ("mrope_rotary_embedding_triton_native", "rotary_embedding_triton_native"):
        spec = catalog(name)
        problem = triton_kernels.native_unavailable()
        if problem is None:
            pytest.skip("this machine runs Triton natively")
        with pytest.raises(Unavailable, match=re.escape(problem)):
            spec.prepare()


# --- the zoo -----------------------------------------------------------------


@needs_kernels
def test_a_row_major_fake_is_caught_only_through_chunked_sections():
    spec = zoo_spec("mrope_sections_row_major_fake")
    message = failure(spec, "fake")
    assert "interleaved=False" in message
    assert re.search(
        r"out\[0\]\.stride\(\)=\(\d+, 1\) in the fake, but the real kernel gives \(1, \d+\)",
        message,
    )
    interleaved_only = mrope_cases.selection_models(True).filter(lambda m: m.interleaved)
    passes(
        dataclasses.replace(spec, cases=interleaved_only.flatmap(mrope_cases.selection_cases_of)),
        "fake",
    )


@needs_kernels
def test_the_chunked_fake_mirrors_the_channel_major_kernel():
    passes(catalog("mrope_sections"), "fake")


@needs_triton
def test_a_triton_mask_of_whole_blocks_leaves_the_tail_unrotated():
    spec = zoo_spec("mrope_triton_whole_blocks_mask")
    with pytest.raises(CheckFailure) as info:
        run_property(spec, "reference", QUICK)
    message = str(info.value)
    tokens = int(re.search(r"query=\w+\[(\d+), ", message).group(1))
    assert tokens % BLOCK_T
    assert "[values] query (written):" in message and "[ULP budget 2]" in message
    whole = mrope_cases.mrope_cases().filter(lambda c: bound(c)["query"].shape[0] % BLOCK_T == 0)
    run_property(dataclasses.replace(spec, cases=whole), "reference", QUICK)


# --- seed 004's fault, injected ----------------------------------------------


def test_the_injected_fault_is_a_mode_only_named_runs_use():
    assert fault_modes()[SHIFTED_SLICE_SCATTER.name] is SHIFTED_SLICE_SCATTER
    assert "inductor_shifted_slice_scatter" not in selected_modes("all")


def test_the_injected_fault_flags_the_slice_form_shrunk_and_blames_inductor(monkeypatch):
    slices = dataclasses.replace(catalog("apply_interleaved_rope_slices"), examples=())
    # Each Case compiled alone, and time to shrink on a loaded machine: the
    # smallest failing Case has one token and five channels, two of a section.
    # The first bug found is the one asked for: no search for others.
    monkeypatch.setattr(properties, "SEARCHES", 1)
    with pytest.raises(CheckFailure) as info:
        run_property(
            slices,
            "compiled",
            QUICK,
            mode=SHIFTED_SLICE_SCATTER,
            batch_size=1,
            shrink_seconds=180,
        )
    message = str(info.value)
    assert "differ bit for bit between inductor_shifted_slice_scatter and eager" in message
    assert "the difference arises in Inductor with an injected fault" in message
    x = re.search(r"x=\w+\[3, (\d+), (\d+)\]", message)
    assert int(x.group(1)) <= 2 and int(x.group(2)) <= 8, message
    for name in ("apply_interleaved_rope_where", "apply_chunked_sections"):
        run_property(catalog(name), "compiled", QUICK, mode=SHIFTED_SLICE_SCATTER)
