"""Every zoo case is caught by the right verdict with the right message."""

from __future__ import annotations

import dataclasses

import pytest
import torch
from torch._subclasses.fake_tensor import UnsupportedOperatorException

from tests.zoo_helpers import CI, failure, needs_kernels, passes, zoo_spec
from torch_conformance.families.rope.cases import fused_qkv_seed_case, rope_cases
from torch_conformance.oracles.checks.compiled import check_compiled
from torch_conformance.oracles.core.findings import CheckFailure
from torch_conformance.oracles.judging.common_findings import no_fake
from torch_conformance.oracles.runner import property as properties
from torch_conformance.oracles.runner.property import run_property

pytestmark = needs_kernels

SEED = fused_qkv_seed_case()


def test_gemma4_fake_fake_verdict_reports_stride_and_aliasing():
    message = failure(zoo_spec("rope_returns_inputs_gemma4_fake"), "fake")
    assert "seed fused-QKV model" in message
    assert "out[0].stride()=(4096, 1) in the fake, but the real kernel gives (6144, 1)" in message
    assert (
        "out[0] is the input 'query' in the real kernel, but is a fresh tensor in the fake"
        in message
    )


def test_gemma4_fake_inductor_verdict_reports_the_stride_assert(monkeypatch):
    # The seed's own example fails first: no search for other bugs.
    monkeypatch.setattr(properties, "SEARCHES", 1)
    message = failure(zoo_spec("rope_returns_inputs_gemma4_fake"), "compiled")
    assert "expected size 32==32, stride 6144==4096 at dim=0" in message
    assert "[compiled] the program compiled by inductor failed" in message


def test_two_dim_fake_is_caught_only_through_4d_cases():
    # Over contiguous and fused-QKV layouts the older fake is right for 2-D and
    # 3-D; Hypothesis must find a 4-D case on its own (the spec has no example).
    spec = zoo_spec("rope_returns_inputs_2d_fake")
    unpermuted = ("contiguous", "fused_qkv")
    message = failure(dataclasses.replace(spec, cases=rope_cases(layouts=unpermuted)), "fake")
    assert "failed on 4-D" in message
    assert "out[0] is the input 'query' in the real kernel, but is a fresh tensor" in message
    passes(dataclasses.replace(spec, cases=rope_cases(ndims=(2, 3), layouts=unpermuted)), "fake")


def test_empty_like_fakes_are_also_wrong_for_permuted_3d_inputs():
    # The kernel allocates contiguous 3-D outputs; empty_like keeps a permuted
    # input's strides. The full strategy finds this too.
    spec = zoo_spec("rope_returns_inputs_2d_fake")
    message = failure(dataclasses.replace(spec, cases=rope_cases(ndims=(3,))), "fake")
    assert "failed on 3-D strided" in message
    assert "in the fake, but the real kernel gives" in message


def test_mirrored_fake_passes_fake_and_inductor_but_not_the_schema():
    spec = zoo_spec("rope_returns_inputs_mirrored_fake")
    passes(spec, "fake")
    passes(spec, "compiled")
    message = failure(spec, "schema")
    assert "out[0] of the real kernel is the input 'query'" in message
    assert "out[0] of the fake is the input 'query'" in message
    # Its aliasing depends on the rank, which no schema can declare: the
    # advice names the two fixes that work.
    assert "this op aliases its inputs for some Cases only (it returns fresh tensors on 3-D" in (
        message
    )
    assert "always return fresh tensors, or split it" in message


def test_fake_variants_of_one_op_in_one_session_get_their_own_verdicts():
    # The cache trap: one op, its fake swapped between runs. A compiled graph
    # cached against the first fake must not judge the second, nor back.
    # The seed's Case alone shows it: the search adds nothing to it.
    gemma4 = zoo_spec("rope_returns_inputs_gemma4_fake")
    mirrored = zoo_spec("rope_returns_inputs_mirrored_fake")
    assert gemma4.op == mirrored.op
    for spec, wrong in ((gemma4, True), (mirrored, False), (gemma4, True)):
        with spec.installed():
            found = [f for f in check_compiled(spec, SEED) if f.blocking]
        assert bool(found) == wrong, (spec.name, found)
        assert not wrong or "stride 6144==4096" in found[0].message


def test_undeclared_write_is_reported_by_the_schema_verdict():
    message = failure(zoo_spec("rope_undeclared_write"), "schema")
    assert "wrote" in message and "of 'query', which its schema declares read-only" in message
    assert "of 'key', which its schema declares read-only" in message


def test_undeclared_write_is_eliminated_under_inductor_and_reported_as_harness_failure():
    spec = zoo_spec("rope_undeclared_write")
    with spec.installed():
        [finding] = check_compiled(spec, SEED)
    assert finding.verdict == "harness" and finding.message.startswith("no verdict:")
    assert "never ran in the program compiled by inductor" in finding.message


def test_missing_fake_is_a_finding_not_a_crash():
    spec = zoo_spec("rope_no_fake")
    message = failure(spec, "fake")
    assert "has no fake (meta) implementation" in message
    assert '@torch.library.register_fake("conformance_zoo::rotary_embedding_no_fake")' in message
    with spec.installed():
        [finding] = check_compiled(spec, SEED)
    assert finding.verdict == "fake" and "has no fake (meta) implementation" in finding.message


def test_a_missing_fake_of_another_op_names_that_op():
    """FakeTensor stops at whichever op has no fake: an op the program or
    the autograd formula calls is named, not the spec's."""
    spec = zoo_spec("rope_returns_inputs_gemma4_fake")
    error = RuntimeError("Backend compiler exception")
    error.__cause__ = UnsupportedOperatorException(torch.ops.conformance.rms_norm_backward.default)
    finding = no_fake(spec, error)
    assert finding.message.startswith(
        f"conformance.rms_norm_backward.default (called where {spec.label} runs) has no fake"
    ), finding
    assert '@torch.library.register_fake("conformance::rms_norm_backward")' in finding.message


def test_overrun_is_reported_as_a_write_outside_the_slice():
    message = failure(zoo_spec("rope_overrun"), "schema")
    assert "of buffer 'qkv' outside every argument's view (first at [0, 5120]" in message


def test_a_fake_that_raises_is_not_reported_as_missing():
    def broken_fake(positions, query, key, head_size, cos_sin_cache, is_neox):
        raise RuntimeError("fake fell over")

    spec = dataclasses.replace(zoo_spec("rope_returns_inputs_gemma4_fake"), fake=broken_fake)
    message = failure(spec, "fake")
    assert "the fake raised where the real kernel did not: RuntimeError" in message
    assert "fake fell over" in message
    assert "has no fake" not in message


def test_a_second_bug_that_shows_only_findings_of_the_first_is_named_beside_it():
    # The 2-D-only fake is wrong for 4-D inputs (fresh outputs where the
    # kernel returns its inputs: aliasing, strides, offsets) and for permuted
    # 3-D ones (strides alone). Nothing of the second is new to the first, so
    # it is not a distinct failure, but its Case is named, in a line.
    with pytest.raises(CheckFailure) as info:
        run_property(zoo_spec("rope_returns_inputs_2d_fake"), "fake", CI)
    [failure] = info.value.failures
    assert failure.case.startswith("4-D"), failure.case
    [partial] = [line for line in failure.report().splitlines() if "also fails" in line]
    assert "with only some of these Findings, on: " in partial, partial
    assert "3-D strided (metadata)" in partial, partial


def test_a_bug_seen_where_less_of_it_shows_is_reported_once():
    # The empty_like fake shows as aliasing alone on contiguous inputs, with
    # wrong strides on strided ones and with a wrong offset on fused QKV: one
    # bug, reported once, on the Case that shows all of it.
    with pytest.raises(CheckFailure) as info:
        run_property(zoo_spec("rope_returns_inputs_gemma4_fake"), "fake", CI)
    [failure] = info.value.failures
    assert {f.verdict for f in failure.findings} == {"aliasing", "metadata"}
    assert "distinct failures" not in str(info.value)
