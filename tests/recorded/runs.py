"""The spec-less route as a user runs it, for the tests: a recording made by
``python -m torch_conformance.suites.record``, then ``pytest --specs-from`` with a JSON report."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

CHECKOUT = Path(__file__).resolve().parents[2]


def record(
    namespaces: str,
    out: Path,
    *command: str,
    cwd: Path = CHECKOUT,
    env: dict[str, str] | None = None,
) -> str:
    """Record ``command``'s calls into ``out`` from ``cwd``; the summary it printed."""
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "torch_conformance.suites.record",
            namespaces,
            f"--out={out}",
            "--",
            *command,
        ],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=900,
        env=env or {**os.environ, "PYTHONPATH": str(CHECKOUT)},
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stderr


def check_spec_less(recording: Path, *options: str, workers: int = 0) -> list[dict]:
    """The JSON report's records of ``pytest --specs-from=recording`` (in one
    process unless ``workers``, its repro files beside the recording)."""
    return run_spec_less(recording, *options, workers=workers)[0]


def run_spec_less(
    recording: Path, *options: str, workers: int = 0, env: dict[str, str] | None = None
) -> tuple[list[dict], subprocess.CompletedProcess]:
    """``check_spec_less``, and the run itself (its exit status and output)."""
    folder = recording.parent
    report = folder / "report.json"
    done = subprocess.run(
        [
            sys.executable, "-m", "pytest", "--conformance-only", f"--specs-from={recording}",
            "-p", "no:cacheprovider",
            "-n", str(workers), f"--repro-dir={folder}", f"--report-json={report}", *options,
        ],
        cwd=CHECKOUT, capture_output=True, text=True, timeout=1800, env=env,
    )  # fmt: skip
    return json.loads(report.read_text())["results"], done
