"""A namespace whose ops do what real libraries' ops do (``tests.recorded.wild_ops``),
recorded and checked spec-less in the ci profile, in two workers: only its
two planted fakes block, every collected test reports, and every repro
script exits 1 on its planted bug and 0 once it is fixed."""

from __future__ import annotations

import dataclasses
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import torch
from hypothesis import strategies as st

from tests.recorded.runs import CHECKOUT, record, recorded_once, run_spec_less, spec_less_once
from tests.zoo_helpers import CI
from torch_conformance.case import Buffer, Case, View
from torch_conformance.oracles.core.findings import CheckFailure
from torch_conformance.oracles.recording.calls import Recording
from torch_conformance.oracles.runner.property import run_property
from torch_conformance.spec import Spec

# The planted bugs, and the tests that must find them.
PLANTED = {
    "test_fake[recorded-conformance_wild.nonzero_rows]": {"metadata"},
    "test_compiled[recorded-conformance_wild.nonzero_rows-inductor]": {"metadata", "values"},
    "test_fake[recorded-conformance_wild.pack4]": {"metadata"},
    "test_compiled[recorded-conformance_wild.pack4-inductor]": {"compiled"},
    "test_registry[conformance_wild]": {"fake-vs-kernel"},
}


@pytest.fixture(scope="module")
def recorded(tmp_path_factory) -> tuple[Path, str]:
    command = ("python", "-m", "tests.recorded.wild_program")
    return recorded_once(tmp_path_factory, "wild", "conformance_wild", *command)


@pytest.fixture(scope="module")
def spec_less(recorded) -> tuple[dict[str, dict], str]:
    """Per test of the spec-less ci run in two workers: its record in the JSON
    report; and what the run printed."""
    results, printed = spec_less_once(recorded[0], "--hypothesis-profile=ci", workers=2)
    return {r["test"].split("::")[-1]: r for r in results}, printed


def _blocking(record: dict) -> set[str]:
    return {f["verdict"] for f in record.get("findings") or () if f["blocking"]}


def test_what_real_programs_pass_is_recorded_and_named(recorded):
    path, summary = recorded
    recording = Recording.load(path)
    # A weight passed as a subclass of nn.Parameter is recorded as the tensor it is.
    assert "conformance_wild::qmatmul" in recording.ops
    # Seen from Python only: an op that decomposes, and one whose autograd kernel calls another.
    assert list(recording.composite) == ["conformance_wild::soft_clip"]
    assert list(recording.above) == ["conformance_wild::outer"]
    assert "conformance_wild::outer: 3 call(s)" in summary
    # The offsets' values are kept: a recorded call replays with them.
    [offsets] = [
        call.buffers[1].data
        for call in recording.ops["conformance_wild::jagged_sum"].calls
        if len(call.buffers[1].data or ()) == 4
    ]
    assert offsets == (0, 3, 3, 8)


def test_only_the_planted_bugs_block_and_every_test_reports(spec_less):
    results, printed = spec_less
    failed = {test: _blocking(r) for test, r in results.items() if r["outcome"] == "failed"}
    assert failed == PLANTED, printed[-3000:]
    # Two workers ran the lot, a kernel that kills its process included.
    assert "never reported" not in printed
    counts = re.findall(r"(\d+) (?:failed|passed|skipped)", printed.splitlines()[-1])
    assert sum(map(int, counts)) == len(results)
    for test in ("test_fake", "test_schema"):
        skipped = results[f"{test}[recorded-conformance_wild.soft_clip]"]
        assert skipped["outcome"] == "skipped"
    assert "holds by construction" in printed


def test_a_kernel_that_kills_its_process_on_an_inferred_case_is_an_edge(spec_less):
    results, _ = spec_less
    record = results["test_reference[recorded-conformance_wild.fragile]"]
    assert record["outcome"] == "passed" and record["recording_edges"] > 0
    [edge] = [f for f in record["findings"] if f["verdict"] == "recording edge"]
    assert "by killing its process (SIGABRT)" in edge["message"] and not edge["blocking"]


def test_a_data_dependent_fake_is_judged_on_what_it_fixes(spec_less):
    results, _ = spec_less
    record = results["test_fake[recorded-conformance_wild.nonzero_rows]"]
    messages = {f["verdict"]: f["message"] for f in record["findings"]}
    assert "out[1].dtype=torch.int32 in the fake" in messages["metadata"]
    assert "out[0].shape[0]=u0 in the fake" in messages["data-dependent size"]


def test_every_repro_exits_1_on_its_planted_bug_and_0_once_fixed(spec_less, recorded):
    folder = recorded[0].parent
    scripts = sorted(folder.glob("*.py"))
    assert {s.name.partition("-")[0] for s in scripts} == {
        "conformance_wild.nonzero_rows",
        "conformance_wild.pack4",
    }
    for script in scripts:
        for fixed, status in (("0", 1), ("1", 0)):
            done = subprocess.run(
                [sys.executable, str(script)],
                cwd=folder,
                capture_output=True,
                text=True,
                timeout=600,
                env={**os.environ, "CONFORMANCE_WILD_FIXED": fixed},
            )
            assert done.returncode == status, (script.name, fixed, done.stdout[-2000:])


def _short_scales(count: int) -> st.SearchStrategy[Case]:
    """One scale where ``count`` elements need several: the kernel reads past its end."""
    buffers = {
        "x": Buffer((count,), torch.int8, ("randint", -100, 100)),
        "scales": Buffer((1,), torch.float32),
    }
    return st.just(Case(buffers, {"x": View("x"), "scales": View("scales"), "blocksize": 32}))


def test_eager_that_does_not_repeat_blames_no_compiler():
    import tests.recorded.wild_ops  # noqa: F401  (registers the ops)

    spec = Spec(
        name="short_scales",
        op="conformance_wild::block_dequant",
        cases=_short_scales(100),
        reference=None,
    )
    with pytest.raises(CheckFailure) as failure:
        run_property(spec, "compiled", CI)
    text = str(failure.value)
    assert "[nondeterministic]" in text and "on a Case the op accepts" in text
    assert "[values]" not in text and "[stage]" not in text
    # A Case the spec only infers the op accepts: said, not blocking.
    seen = []
    inferred = dataclasses.replace(spec, inferred=lambda case: True)
    run_property(inferred, "compiled", CI, on_finding=lambda f, case: seen.append(f))
    assert {f.verdict for f in seen} == {"nondeterministic"}
    assert not any(f.blocking for f in seen)


INSTALLED = '''\
"""An installed package that defines an op and registers its fake (torch wraps it)."""
import os

import torch

lib = torch.library.Library("conformance_installed", "DEF")
lib.define("widen(Tensor x) -> Tensor")
lib.impl("widen", lambda x: x.to(torch.float64) * 2, "CPU")


@torch.library.register_fake("conformance_installed::widen", lib=lib)
def _(x):
    fixed = os.environ.get("CONFORMANCE_WILD_FIXED") == "1"
    return x.new_empty(x.shape, dtype=torch.float64 if fixed else torch.float32)
'''


def test_a_repro_of_an_installed_packages_op_runs(tmp_path):
    site = tmp_path / "site-packages"
    (site / "installed_ops").mkdir(parents=True)
    (site / "installed_ops" / "__init__.py").write_text(INSTALLED)
    work = tmp_path / "work"
    work.mkdir()
    (work / "program.py").write_text(
        "import torch\nimport installed_ops  # noqa: F401\n"
        "for n in (3, 5, 8):\n    torch.ops.conformance_installed.widen(torch.randn(n, 4))\n"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(CHECKOUT), str(site)])}
    calls = work / "calls.json"
    record("conformance_installed", calls, "python", "program.py", cwd=work, env=env)
    results, _ = run_spec_less(calls, "-k", "test_fake", env=env)
    assert [r["outcome"] for r in results] == ["failed"]
    [script] = work.glob("*-fake.py")
    assert 'importlib.import_module("installed_ops")' in script.read_text()
    for fixed, status in (("0", 1), ("1", 0)):
        done = subprocess.run(
            [sys.executable, str(script)], capture_output=True, text=True, timeout=600,
            env={**env, "CONFORMANCE_WILD_FIXED": fixed},
        )  # fmt: skip
        assert done.returncode == status, done.stdout + done.stderr
