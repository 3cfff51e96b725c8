"""A kernel that kills its process fails one test; the run goes on and reports."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

from tests.zoo_helpers import needs_kernels

CHECKOUT = Path(__file__).resolve().parents[2]


@needs_kernels
def test_an_aborting_kernel_fails_one_test_and_the_run_goes_on(tmp_path):
    report = tmp_path / "report.json"
    result = subprocess.run(
        [
            sys.executable, "-m", "pytest", "--conformance-only",
            "--specs=torch_conformance.suites.zoo", "--hypothesis-profile=ci",
            "-k", "(rope_aborts or mirrored) and test_reference", f"--report-json={report}",
            f"--repro-dir={tmp_path}",
        ],
        cwd=CHECKOUT, capture_output=True, text=True,
    )  # fmt: skip
    assert result.returncode == 1, result.stdout[-3000:]
    assert "1 failed, 1 passed" in result.stdout
    assert "test_reference[rope-zoo-rope_aborts]" in result.stdout
    # A worker per core: whichever ran the aborting kernel died, and only it.
    died = r"\[crash\] the process running this check died \(worker gw\d+ crashed"
    assert re.search(died, result.stdout)
    assert "bfloat16" in result.stdout and "is_neox=True" in result.stdout  # the Case
    assert "-n 0 --replay=" in result.stdout
    results = {r["spec"]: r for r in json.loads(report.read_text())["results"]}
    crashed = results["rope-zoo-rope_aborts"]
    assert crashed["outcome"] == "failed"
    [finding] = crashed["findings"]
    assert finding["verdict"] == "crash" and "is_neox=True" in finding["case"]
    assert results["rope-zoo-rope_returns_inputs_mirrored_fake"]["outcome"] == "passed"
