"""Record a model-like program's calls, then check every op it called with
no spec written: the spec-less run finds the zoo's bugs with the verdicts
the hand-written zoo specs give, and passes the catalog's correct ops."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.recorded.runs import CHECKOUT, recorded_once, spec_less_once
from tests.zoo_helpers import CI, needs_kernels, zoo_spec
from torch_conformance.oracles.core.findings import CheckFailure
from torch_conformance.oracles.recording.calls import RecordedTensor, Recording
from torch_conformance.oracles.recording.cases import case_of
from torch_conformance.oracles.runner.property import run_property

ROPE = "conformance_zoo::rotary_embedding_cpu"
ADD_NORM = "conformance_zoo::add_rms_norm_returns_one"
CORRECT = ("conformance::fused_add_rms_norm", "conformance::rms_norm", "conformance::silu_and_mul")

pytestmark = needs_kernels


@pytest.fixture(scope="module")
def recorded(tmp_path_factory) -> Path:
    # In processes of their own: the program registers a fake on a zoo op
    # that the zoo's specs install fakes on in turn.
    command = ("python", "-m", "tests.recorded.decoder")
    out, summary = recorded_once(
        tmp_path_factory, "recorded", "conformance,conformance_zoo", *command
    )
    assert "recorded 5 op(s)" in summary and "torch-conformance check --specs-from=" in summary
    return out


@pytest.fixture(scope="module")
def spec_less(recorded: Path) -> dict[str, set[str]]:
    """Per test of the spec-less run: its blocking verdicts."""
    results, _ = spec_less_once(
        recorded, "--compiles=2", "-k", "test_fake or test_schema or test_compiled"
    )
    return {
        r["test"].split("::")[-1]: {f["verdict"] for f in r.get("findings") or () if f["blocking"]}
        for r in results
    }


def test_the_recording_holds_each_call_without_data(recorded):
    recording = Recording.load(recorded)
    assert sorted(recording.ops) == sorted([ROPE, ADD_NORM, *CORRECT])
    assert "tests.recorded.layer_ops" in recording.imports
    rope = recording.ops[ROPE]
    assert rope.count == 4 and len(rope.calls) == 4  # four token counts
    call = next(c for c in rope.calls if dict(c.args)["query"].shape == (7, 64))
    args = dict(call.args)
    # q and k: column slices of one fused qkv buffer, as the model split it.
    assert args["query"] == RecordedTensor(args["query"].buffer, (7, 64), (128, 1), 0)
    assert args["key"] == RecordedTensor(args["query"].buffer, (7, 32), (128, 1), 64)
    positions = call.buffers[args["positions"].buffer]
    assert (positions.low, positions.high) == (5, 11)  # arange(7) + 5
    assert args["head_size"] == 16 and args["is_neox"] is True
    case = case_of(call)
    [shared] = [name for name in case.buffers if "query" in name]
    assert case.args["key"].buffer == shared == case.args["query"].buffer
    assert "query=float32[7, 64] stride=(128, 1) offset=0" in case.describe()
    assert "key=float32[7, 32] stride=(128, 1) offset=64" in case.describe()
    again = recorded.with_name("again.json")
    assert Recording.load(recording.save(again)) == recording


def _blocking(spec, check: str) -> set[str]:
    found: set[str] = set()
    with pytest.raises(CheckFailure):
        run_property(spec, check, CI, on_finding=lambda f, _: f.blocking and found.add(f.verdict))
    return found


def test_the_spec_less_run_finds_the_zoo_bugs_as_their_specs_do(spec_less):
    rope, add_norm = (
        "conformance_zoo.rotary_embedding_cpu",
        "conformance_zoo.add_rms_norm_returns_one",
    )
    gemma4 = zoo_spec("rope_returns_inputs_gemma4_fake")
    one = zoo_spec("add_rms_norm_returns_one")
    assert spec_less[f"test_fake[recorded-{rope}]"] == _blocking(gemma4, "fake")
    assert spec_less[f"test_schema[recorded-{rope}]"] == _blocking(gemma4, "schema")
    assert spec_less[f"test_fake[recorded-{add_norm}]"] == _blocking(one, "fake")
    # Under compile: the seed's stride assert, and the structure torch refuses.
    assert spec_less[f"test_compiled[recorded-{rope}-inductor]"] == {"compiled"}
    assert spec_less[f"test_compiled[recorded-{add_norm}-inductor]"] == {"compiled"}


def test_the_spec_less_run_passes_the_correct_ops(spec_less):
    for op in CORRECT:
        name = op.replace("::", ".")
        for test in (f"test_fake[recorded-{name}]", f"test_compiled[recorded-{name}-inductor]"):
            assert spec_less[test] == set(), test


def test_a_pytest_run_of_the_teams_own_tests_is_recorded(tmp_path):
    out = tmp_path / "calls.json"
    done = subprocess.run(
        [sys.executable, "-m", "torch_conformance.suites.record", "conformance,conformance_zoo",
        f"--out={out}",
         "--", "pytest", "-q", "-p", "no:cacheprovider", "tests/recorded/uses_ops.py"],
        cwd=CHECKOUT, capture_output=True, text=True, timeout=900,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert "1 passed" in done.stdout
    recording = Recording.load(out)
    assert sorted(recording.ops) == sorted([ROPE, ADD_NORM, *CORRECT])
    assert recording.ops[ROPE].count == 4
