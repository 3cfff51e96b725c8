"""The spec-less route as a user runs it, for the tests: a recording made by
``python -m suites.record``, then ``pytest --specs-from`` with a JSON report."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

CHECKOUT = Path(__file__).resolve().parents[2]


def record(namespaces: str, out: Path, *command: str, cwd: Path = CHECKOUT) -> str:
    """Record ``command``'s calls into ``out`` from ``cwd``; the summary it printed."""
    done = subprocess.run(
        [sys.executable, "-m", "suites.record", namespaces, f"--out={out}", "--", *command],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=900,
        env={**os.environ, "PYTHONPATH": str(CHECKOUT)},
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stderr


def check_spec_less(recording: Path, *options: str) -> list[dict]:
    """The JSON report's records of ``pytest --specs-from=recording`` (in one
    process, its repro files beside the recording)."""
    folder = recording.parent
    report = folder / "report.json"
    subprocess.run(
        [
            sys.executable, "-m", "pytest", f"--specs-from={recording}", "-p", "no:cacheprovider",
            "-n", "0", f"--repro-dir={folder}", f"--report-json={report}", *options,
        ],
        cwd=CHECKOUT, capture_output=True, text=True, timeout=1800,
    )  # fmt: skip
    return json.loads(report.read_text())["results"]
