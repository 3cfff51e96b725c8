"""The report plugin records each check's verdict and Findings."""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from tests.zoo_helpers import needs_kernels
from torch_conformance.reports.plugin import record

CHECKOUT = Path(__file__).resolve().parents[2]


@needs_kernels
def test_json_report_holds_the_findings_of_a_failing_check(tmp_path):
    report = tmp_path / "report.json"
    result = subprocess.run(
        [
            sys.executable, "-m", "pytest", "--conformance-only", "-n", "0", "-q", "--specs",
            "torch_conformance.suites.zoo",
            "-k", "gemma4 and (test_fake or test_reference)", f"--report-json={report}",
            f"--junitxml={tmp_path / 'junit.xml'}", f"--report-md={tmp_path / 'run.md'}",
            f"--repro-dir={tmp_path / 'repro'}",
        ],
        cwd=CHECKOUT, capture_output=True, text=True,
    )  # fmt: skip
    assert result.returncode == 1, result.stdout[-2000:]
    written = json.loads(report.read_text())
    assert "inductor_triton" in written["checks"]["compiled"]["modes"]
    assert "metadata" in written["checks"]["fake"]["verdicts"]
    results = {r["check"]: r for r in written["results"]}
    assert results["reference"]["outcome"] == "passed"
    assert results["reference"]["findings"] == []
    assert results["reference"]["mode"] == "eager"
    fake = results["fake"]
    assert fake["outcome"] == "failed"
    assert fake["mode"] == "fake"
    assert fake["spec"] == "rope-zoo-rope_returns_inputs_gemma4_fake"
    messages = [f["message"] for f in fake["findings"]]
    assert "out[0].stride()=(4096, 1) in the fake, but the real kernel gives (6144, 1)" in messages
    assert any("seed fused-QKV model" in finding["case"] for finding in fake["findings"])
    assert "stride()=(4096, 1) in the fake" in (tmp_path / "junit.xml").read_text()
    # Enough to tell a reader what ran, how much, and how to reproduce it.
    assert written["torch"] and written["profile"] == "dev" and written["wall_s"] > 0
    assert results["reference"]["cases"] > 0 and fake["cases"] > 0
    # One bug, shown in full by the fused-QKV example: one failure.
    assert len(fake["failures"]) == 1 and fake["report"].startswith("fake check of")
    first = fake["failures"][0]
    assert "seed fused-QKV model" in first["case"]
    assert first["rerun"].startswith("pytest 'torch_conformance/test_conformance.py::test_fake[")
    assert "import torch" in first["script_text"]
    table = (tmp_path / "run.md").read_text()
    assert (
        "| rope-zoo-rope_returns_inputs_gemma4_fake | fake | fake | fail: aliasing, metadata ("
        in table
    )
    assert (
        "| rope-zoo-rope_returns_inputs_gemma4_fake | reference | eager | "
        f"pass ({results['reference']['cases']}) |" in table
    )


SIZE_ONE_STRIDES = """
import torch
from hypothesis import strategies as st

from torch_conformance.oracles.core.buffers import Buffer, Case, View
from torch_conformance.oracles.core.specification import Spec

torch.library.define("report_tests::row", "(Tensor x) -> Tensor")


@torch.library.impl("report_tests::row", "cpu")
def _(x):
    return x.reshape(1, -1).clone()  # strides (n, 1)


@torch.library.register_fake("report_tests::row")
def _(x):
    return x.new_empty((1, x.numel())).as_strided((1, x.numel()), (1, 1))


SPECS = [
    Spec(
        name="row",
        op="report_tests::row",
        cases=st.integers(2, 6).map(
            lambda n: Case({"x": Buffer((n,), torch.float32)}, {"x": View("x")})
        ),
        reference=None,
    )
]
"""


def test_non_blocking_findings_of_a_passing_check_reach_the_warnings_summary(tmp_path):
    specs = tmp_path / "row_specs.py"
    specs.write_text(SIZE_ONE_STRIDES)
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "--conformance-only", "-n", "0", "-q", f"--specs={specs}",
         "-k", "test_fake",
         "-p", "no:cacheprovider"],
        cwd=CHECKOUT, capture_output=True, text=True,
    )  # fmt: skip
    assert result.returncode == 0, result.stdout[-2000:]
    assert "NonBlockingFinding: " in result.stdout
    assert "non-blocking [size-1 strides] Finding(s), the first on x=float32[" in result.stdout


@needs_kernels
def test_a_failing_check_fits_on_a_screen_and_says_how_to_reproduce_it(tmp_path):
    # Seeded: unseeded, the dev profile's draws find the zoo op's other
    # failures in some runs, and their shrinking costs a compile a step.
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "--conformance-only", "-n", "0",
         "--specs=torch_conformance.suites.zoo",
         f"--repro-dir={tmp_path}", "-k", "gemma4 and (test_compiled or test_fake)",
         "--modes=inductor", "--compiles=2", "--hypothesis-seed=0"],
        cwd=CHECKOUT, capture_output=True, text=True,
    )  # fmt: skip
    output = result.stdout + result.stderr
    assert result.returncode == 1, output[-3000:]
    sections = output.split("\n____")[1:]
    assert len(sections) == 2, output[-3000:]
    for section in sections:
        assert len(section.splitlines()) <= 150, section
        assert "rerun this Case: pytest 'torch_conformance/test_conformance.py::test_" in section
        assert "--specs=torch_conformance.suites.zoo -n 0 --replay=" in section
        assert "standalone repro (plain torch): python " in section
    assert "torch.__trace" not in output and "USDT" not in output
    assert "Traceback" not in output and "@reproduce_failure" not in output
    # The rerun command runs exactly the failing Case again.
    rerun = re.search(r"rerun this Case: (pytest .*)", sections[0]).group(1)
    again = subprocess.run(
        [sys.executable, "-m", *shlex.split(rerun)], cwd=CHECKOUT, capture_output=True, text=True
    )
    assert again.returncode == 1
    first = sections[0].split("rerun this Case")[0]  # the first failure's Findings
    findings = [line for line in first.splitlines() if line.startswith("  [")]
    assert findings and all(line in again.stdout for line in findings)


def _report(outcome: str, longrepr, properties: list) -> pytest.TestReport:
    return pytest.TestReport(
        "torch_conformance/test_known_faults.py::test_known_fault[dynamic_write_back]",
        ("torch_conformance/test_known_faults.py", 0, "test_known_fault"),
        {}, outcome, longrepr, "setup" if outcome == "skipped" else "call",
        user_properties=properties,
    )  # fmt: skip


def test_a_record_keeps_a_skips_reason_and_whether_a_known_fault_reproduced():
    skipped = record(_report("skipped", ("suites/x.py", 3, "Skipped: spec_x: no CUDA device"), []))
    assert skipped["outcome"] == "skipped" and skipped["reason"] == "spec_x: no CUDA device"
    fault = record(
        _report(
            "passed",
            None,
            [("spec", "dynamic-shape write-back"), ("check", "known_fault"),
             ("mode", "inductor"), ("reproduces", True)],
        )
    )  # fmt: skip
    assert (fault["spec"], fault["check"], fault["reproduces"]) == (
        "dynamic-shape write-back",
        "known_fault",
        True,
    )


def _explained(result: dict) -> bool:
    """Triage compiled more programs than the budget's: a known fault explained
    a disagreement (torch 2.14's dynamic -0.0 constant, on a batch drawn with
    fill=-0.0), and its evidence is compiled runs of its own."""
    return any(f["verdict"] == "known compiler fault" for f in result["findings"])


def test_a_run_ends_with_what_it_covered_and_records_what_it_spent(tmp_path):
    report = tmp_path / "report.json"
    specs = CHECKOUT / "tests" / "user_specs" / "argument_specs.py"
    result = subprocess.run(
        [
            sys.executable, "-m", "pytest", "--conformance-only", "-n", "0", f"--specs={specs}",
            "-k",
            "pick and not programs", f"--report-json={report}",
        ],
        cwd=CHECKOUT, capture_output=True, text=True,
    )  # fmt: skip
    assert result.returncode == 0, result.stdout[-3000:]
    summary = result.stdout[result.stdout.index("conformance coverage") :]
    assert "Cases judged / programs compiled, per spec and check" in summary
    row = next(line for line in summary.splitlines() if line.startswith("pick "))
    cases, programs = map(int, re.search(r"\b(2\d) / (\d+)\b", row).groups())  # compiled check
    [compiled] = [r for r in json.loads(report.read_text())["results"] if r["check"] == "compiled"]
    # Two batches, one program each (and triage's, see ``_explained``).
    assert programs == compiled["signatures"] and (programs > 2) <= _explained(compiled), row
    assert re.search(r"Modes: .*inductor.*; \d+ compiles in all", summary), summary
    assert "Further: --hypothesis-profile=ci" in summary
    assert compiled["signatures"] >= 1 and compiled["compiles"] >= compiled["signatures"]
    assert 0 < len(compiled["per_case"]) <= compiled["cases"]


def test_a_budget_of_compiles_is_what_the_compiling_checks_spend(tmp_path):
    report = tmp_path / "report.json"
    specs = CHECKOUT / "tests" / "user_specs" / "argument_specs.py"
    result = subprocess.run(
        [
            sys.executable, "-m", "pytest", "--conformance-only", "-n", "0", f"--specs={specs}",
            "--spec=pick", "-k",
            "compiled or programs", "--compiles=1", f"--report-json={report}",
        ],
        cwd=CHECKOUT, capture_output=True, text=True,
    )  # fmt: skip
    assert result.returncode == 0, result.stdout[-3000:]
    runs = {r["check"]: r for r in json.loads(report.read_text())["results"]}
    # Every Case the profile gives the compiled check, in one compiled program.
    compiled = runs["compiled"]
    assert compiled["cases"] >= 20 and (compiled["signatures"] > 1) <= _explained(compiled)
    assert runs["programs"]["cases"] == 1
    none = subprocess.run(
        [sys.executable, "-m", "pytest", "--conformance-only", "--catalog", "-n", "0",
         "--compiles=0", "--collect-only"],
        cwd=CHECKOUT, capture_output=True, text=True,
    )  # fmt: skip
    assert none.returncode != 0 and "--compiles must be at least 1, got 0" in none.stderr
