"""The report plugin records each check's verdict and Findings."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.zoo_helpers import needs_kernels

CHECKOUT = Path(__file__).resolve().parent.parent


@needs_kernels
def test_json_report_holds_the_findings_of_a_failing_check(tmp_path):
    report = tmp_path / "report.json"
    result = subprocess.run(
        [
            sys.executable, "-m", "pytest", "-q", "--specs", "suites/zoo.py",
            "-k", "gemma4 and (test_fake or test_reference)", f"--report-json={report}",
            f"--junitxml={tmp_path / 'junit.xml'}",
        ],
        cwd=CHECKOUT, capture_output=True, text=True,
    )  # fmt: skip
    assert result.returncode == 1, result.stdout[-2000:]
    results = {r["check"]: r for r in json.loads(report.read_text())["results"]}
    assert results["reference"]["outcome"] == "passed"
    assert results["reference"]["findings"] == []
    fake = results["fake"]
    assert fake["outcome"] == "failed"
    assert fake["spec"] == "rope-zoo-rope_returns_inputs_gemma4_fake"
    messages = [f["message"] for f in fake["findings"]]
    assert "out[0].stride()=(4096, 1) in the fake, but the real kernel gives (6144, 1)" in messages
    assert "seed fused-QKV model" in fake["findings"][0]["case"]
    assert "stride()=(4096, 1) in the fake" in (tmp_path / "junit.xml").read_text()
