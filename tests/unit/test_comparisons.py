"""Each verdict catches what it claims, with the right message, and is silent otherwise."""

from __future__ import annotations

import torch

from torch_conformance.oracles.comparisons.outputs import (
    aliasing,
    metadata,
    past_storage,
    schema_aliasing,
    structure,
)
from torch_conformance.oracles.comparisons.values import bit_exact, within_ulps
from torch_conformance.oracles.comparisons.writes import writes
from torch_conformance.oracles.core.buffers import Buffer, Case, View
from torch_conformance.oracles.core.expectation import Expectation, Expected, exact, ulp_error
from torch_conformance.oracles.core.observation import Observation
from torch_conformance.oracles.core.verdicts import METADATA
from torch_conformance.oracles.modes.programs import as_strided_over_a_copy


def test_bit_exact_treats_nan_as_equal_and_signed_zeros_as_different():
    nan = torch.tensor([float("nan"), 1.0])
    assert bit_exact("out", nan, nan.clone(), "inductor", "eager") == []
    [finding] = bit_exact(
        "out", torch.tensor([0.0, -0.0]), torch.tensor([0.0, 0.0]), "inductor", "eager"
    )
    assert "1 of 2 elements differ bit for bit" in finding.message
    assert "first at [1]" in finding.message


def test_bit_exact_reports_shape_and_dtype():
    [finding] = bit_exact("out", torch.zeros(2), torch.zeros(3), "inductor", "eager")
    assert "[2] in inductor but torch.float32[3] in eager" in finding.message


def test_ulp_budget_is_counted_at_the_magnitude_of_the_terms():
    # 1.0 - 0.999 cancels: fp32 rounding of the terms is far more than 2 ULP
    # of the tiny result, but not of the terms.
    value = torch.tensor([1e-3], dtype=torch.float64)
    scale = torch.tensor([2.0], dtype=torch.float64)
    got = torch.tensor([1e-3 + 2.0e-7])
    assert float(ulp_error(got, Expected(value, scale))[0]) < 2
    assert float(ulp_error(got, Expected(value, value))[0]) > 1000


def test_within_ulps_states_the_budget():
    eps = torch.finfo(torch.float32).eps
    expected = exact(torch.tensor([1.0, 2.0]))
    got = torch.tensor([1.0 + 3 * eps, 2.0])
    [finding] = within_ulps("out[0]", got, expected, 2, "eager")
    assert "1 of 2 elements are more than 2 ULP" in finding.message
    assert "[ULP budget 2]" in finding.message
    assert within_ulps("out[0]", got, expected, 3, "eager") == []


def test_within_ulps_matches_nan_with_nan():
    value = torch.tensor([float("nan")])
    assert within_ulps("out", value, exact(value), 0, "eager") == []


def test_metadata_reports_strides_and_size_one_dims_apart():
    real = torch.empty(32, 6144)[:, :4096]
    [finding] = metadata("out[0]", real, torch.empty(32, 4096), "the fake")
    assert finding.message == (
        "out[0].stride()=(4096, 1) in the fake, but the real kernel gives (6144, 1)"
    )
    [finding] = metadata("out[0]", torch.empty(1, 4), torch.empty(1, 8)[:, :4], "the fake")
    assert "only dimensions of size 1 differ" in finding.message
    assert finding.verdict == "size-1 strides" and not finding.blocking
    assert metadata("out[0]", real, real, "the fake") == []


def test_metadata_reports_storage_offset():
    base = torch.empty(8)
    [finding] = metadata("out[1]", base[4:], torch.empty(4), "the fake")
    assert "out[1].storage_offset()=0 in the fake, but the real kernel gives 4" in finding.message


def test_metadata_ignores_the_layout_of_an_empty_tensor():
    # No element to read: its strides and offset cannot be told apart.
    empty = torch.empty(1, 3)[1:]
    assert metadata("out[1]", empty, torch.empty(3, 1).t()[1:], "inductor") == []
    [finding] = metadata("out[1]", empty, torch.empty(0, 4), "inductor")
    assert finding.message == "out[1].shape=(0, 4) in inductor, but the real kernel gives (0, 3)"


def test_aliasing_compares_the_inputs_each_output_aliases():
    x = torch.empty(4)
    args = {"x": x}
    [finding] = aliasing("out[0]", x, args, torch.empty(4), args, "the fake")
    assert finding.message == (
        "out[0] is the input 'x' in the real kernel, but is a fresh tensor in the fake"
    )
    assert aliasing("out[0]", x, args, x, args, "the fake") == []


def test_schema_aliasing_wants_annotations_for_returned_inputs():
    x = torch.empty(4)
    [finding] = schema_aliasing(torch.ops.aten.sin.default, (x,), {"self": x})
    assert "out[0] of the real kernel is the input 'self'" in finding.message
    assert "declares no alias" in finding.message
    assert schema_aliasing(torch.ops.aten.sin.default, (x.sin(),), {"self": x}) == []
    y = torch.empty(4)
    out = torch.ops.aten.sin.out(x, out=y)
    assert schema_aliasing(torch.ops.aten.sin.out, (out,), {"self": x, "out": y}) == []


def _written(case: Case, write) -> Observation:
    buffers = case.allocate()
    before = {n: b.clone() for n, b in buffers.items()}
    args = case.bind(buffers)
    write(args, buffers)
    return Observation("eager", args, None, before, buffers)


CASE = Case(
    buffers={"qkv": Buffer((2, 12), torch.float32), "scale": Buffer((3,), torch.float32)},
    args={
        "q": View("qkv", (("split", (4, 4, 4), -1, 0),)),
        "k": View("qkv", (("split", (4, 4, 4), -1, 1),)),
        "scale": View("scale"),
    },
)


def test_writes_silent_for_declared_writes():
    obs = _written(CASE, lambda a, b: (a["q"].mul_(2), a["k"].mul_(3)))
    assert writes(CASE, obs, {"q", "k"}, None, 0) == []


def test_writes_reports_undeclared_writes():
    obs = _written(CASE, lambda a, b: a["scale"].add_(1))
    [finding] = writes(CASE, obs, {"q", "k"}, None, 0)
    assert "wrote 3 element(s) of 'scale', which its schema declares read-only" in finding.message


def test_writes_reports_writes_outside_every_view():
    obs = _written(CASE, lambda a, b: b["qkv"][:, 8].add_(1))
    [finding] = writes(CASE, obs, {"q", "k"}, None, 0)
    assert "wrote 2 element(s) of buffer 'qkv' outside every argument's view" in finding.message
    assert "first at [0, 8] of its [2, 12]" in finding.message


def test_writes_reports_declared_writes_that_never_happen():
    obs = _written(CASE, lambda a, b: None)
    changed = Expected(obs.args["q"].double() + 1, obs.args["q"].double().abs())
    [finding] = writes(CASE, obs, {"q"}, Expectation(writes={"q": changed}), 2)
    assert "declares 'q' written and the reference changes it" in finding.message
    unchanged = exact(obs.args["q"])
    assert writes(CASE, obs, {"q"}, Expectation(writes={"q": unchanged}), 2) == []


def test_structure_reports_missing_outputs():
    [finding] = structure((torch.empty(1), torch.empty(1)), None, "the fake")
    assert finding.message == (
        "the real kernel returns 2 output(s) (Tensor, Tensor) but the fake returns None"
    )


def test_a_view_that_reaches_past_its_storage_is_a_metadata_finding():
    """A deployed program once returned a view whose elements lie past the
    end of its storage; reading it reads memory it does not own, so the
    comparison says so instead of reading it. Only a known fault's predicted
    answer, made the same way, reaches past its storage alike."""
    base = torch.zeros(100)
    view = base[50:].view(10, 5)
    eager = torch.zeros(50).view(10, 5)
    assert past_storage("out[0]", view, "aoti", eager) is None
    base.untyped_storage().resize_(30 * base.element_size())
    finding = past_storage("out[0]", view, "aoti", eager)
    assert finding is not None and finding.verdict == METADATA and finding.blocking
    assert str(finding) == (
        "[metadata] out[0] in aoti reaches element 99 of its storage, which holds 30: its view "
        "(shape [10, 5], stride (5, 1), offset 50) reads past the end of its memory"
    )
    assert past_storage("out[0]", torch.zeros(0), "aoti", torch.zeros(0)) is None
    alike = as_strided_over_a_copy(torch.zeros(30), (10, 5), (5, 1), 50)
    assert past_storage("out[0]", view, "aoti", alike) is None
    shorter = as_strided_over_a_copy(torch.zeros(29), (10, 5), (5, 1), 50)
    assert past_storage("out[0]", view, "aoti", shorter) == finding
