"""A namespace whose ops tie their arguments (a per-group scale, a gather,
a paged write, an op that takes an even row count), recorded and checked
with no spec written: the ties are kept, a refusal beyond the recording is
counted and blames no op, and only the planted wrong fake blocks."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.recorded.runs import recorded_once, spec_less_once
from tests.zoo_helpers import CI
from torch_conformance.oracles.core.findings import CheckFailure
from torch_conformance.oracles.recording.calls import Recording
from torch_conformance.oracles.recording.specs import recorded_spec
from torch_conformance.oracles.runner.property import run_property
from torch_conformance.oracles.runner.tally import Tally

PLANTED = "conformance_tied.group_dequantize"
TIED = ("gather_rows", "group_quantize", "negated", "paged_write", "pair_sum")


@pytest.fixture(scope="module")
def recorded(tmp_path_factory) -> tuple[Path, str]:
    command = ("python", "-m", "tests.recorded.tied_program")
    return recorded_once(tmp_path_factory, "tied", "conformance_tied", *command)


@pytest.fixture(scope="module")
def spec_less(recorded) -> dict[str, dict]:
    """Per test of the spec-less run: its record in the JSON report."""
    results, _ = spec_less_once(
        recorded[0],
        "--compiles=2",
        "-k",
        "test_reference or test_fake or test_schema or test_compiled",
    )
    return {r["test"].split("::")[-1]: r for r in results}


def _blocking(record: dict) -> set[str]:
    return {f["verdict"] for f in record.get("findings") or () if f["blocking"]}


def test_every_op_called_is_named_with_its_registration(recorded):
    path, summary = recorded
    recording = Recording.load(path)
    assert sorted(recording.ops) == sorted(
        [f"conformance_tied::{op}" for op in (*TIED, "group_dequantize")]
    )
    assert recording.ops["conformance_tied::negated"].registration == (
        "a Meta kernel (Library.impl)"
    )
    assert recording.ops["conformance_tied::pair_sum"].registration == "register_fake"
    # Found from the dispatcher: Library.impl keeps no function to name its module.
    assert "tests.recorded.library_ops" in recording.imports
    # Decomposed before any dispatch mode, yet recorded and named, with why.
    assert recording.composite["conformance_tied::halved"].count == 4
    assert "conformance_tied::halved: 4 call(s)" in summary
    assert "checked by what they decompose into" in summary


def test_only_the_planted_fake_blocks(spec_less):
    for op in TIED:
        for test, result in spec_less.items():
            if f"conformance_tied.{op}" in test:
                assert result["outcome"] == "passed" and not _blocking(result), test
    assert _blocking(spec_less[f"test_fake[recorded-{PLANTED}]"]) == {"metadata"}
    assert _blocking(spec_less[f"test_compiled[recorded-{PLANTED}-inductor]"]) == {"compiled"}


def test_a_refusal_beyond_the_recording_is_counted_and_blames_no_op(spec_less):
    result = spec_less["test_reference[recorded-conformance_tied.pair_sum]"]
    assert result["outcome"] == "passed" and result["recording_edges"] > 0
    [edge] = [f for f in result["findings"] if f["verdict"] == "recording edge"]
    assert not edge["blocking"] and "(resized)" in edge["case"]
    assert "refused a Case that no recorded call shows" in edge["message"]
    assert "even number of rows" in edge["message"]


def test_a_refused_recorded_call_stays_a_crash(recorded, tmp_path):
    data = json.loads(recorded[0].read_text())
    [call, *_] = data["ops"]["conformance_tied::pair_sum"]["calls"]
    call["args"]["x"]["tensor"]["shape"][0] = 3  # a call the program made with 3 rows
    odd = tmp_path / "odd.json"
    odd.write_text(json.dumps(data))
    spec = recorded_spec(odd, "conformance_tied::pair_sum")
    tally = Tally()
    with pytest.raises(CheckFailure) as failure:
        run_property(spec, "reference", CI, tally=tally)
    assert "[crash]" in str(failure.value) and "even number of rows, not 3" in str(failure.value)
