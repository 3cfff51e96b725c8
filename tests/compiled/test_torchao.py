"""A real library nobody here wrote, spec-less: torchao's quantization ops
recorded from a small program run outside the checkout, then checked. Every
op the program calls is named, and no op is blamed for a Case its recorded
calls do not show (installed by the ``test`` extra; skipped without it)."""

from __future__ import annotations

import json
import shutil

import pytest

from tests.recorded.runs import CHECKOUT, check_spec_less, record

pytest.importorskip("torchao", reason="torchao is not installed (pip install -e '.[test]')")

RECORDED = ("dequantize_affine_float8_non_decomposed", "quantize_affine_float8_non_decomposed")
COMPOSITE = ("choose_qparams_affine", "choose_scale_float8", "dequantize_affine", "quantize_affine")


@pytest.fixture(scope="module")
def recording(tmp_path_factory) -> tuple[dict, str]:
    folder = tmp_path_factory.mktemp("torchao")
    shutil.copy(CHECKOUT / "tests" / "recorded" / "torchao_program.py", folder)
    out = folder / "calls.json"
    summary = record("torchao", out, "python", "torchao_program.py", cwd=folder)
    return json.loads(out.read_text()) | {"path": out}, summary


def test_every_op_the_program_calls_is_named(recording):
    data, summary = recording
    assert sorted(data["ops"]) == [f"torchao::{op}" for op in RECORDED]
    assert sorted(data["composite"]) == [f"torchao::{op}" for op in COMPOSITE]
    assert data["ops"][f"torchao::{RECORDED[0]}"]["registration"] == "a Meta kernel (Library.impl)"
    assert "torchao.quantization.quant_primitives" in data["imports"]
    for op in (*RECORDED, *COMPOSITE):
        assert f"torchao::{op}: " in summary


def test_no_op_is_blamed_for_a_case_its_recording_does_not_show(recording):
    results = check_spec_less(recording[0]["path"], "--compiles=2")
    assert {r["check"] for r in results} >= {"reference", "fake", "schema", "compiled", "registry"}
    for result in results:
        # Inductor cannot compile some writes into float8 values (torch alone
        # reproduces them): known compiler faults, never the op's crash.
        blocking = [f for f in result.get("findings") or () if f["blocking"]]
        assert result["outcome"] in ("passed", "skipped") and not blocking, result["test"]
