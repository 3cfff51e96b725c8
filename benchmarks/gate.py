"""One run of the gate as CI runs it, in a process of its own: its test
records (its JSON report) and its wall time."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

CHECKOUT = Path(__file__).resolve().parent.parent


def run_gate(
    arguments: list[str],
    report: Path,
    cache: Path,
    out: Path,
    workers: int,
    profile: str = "ci",
    env: dict[str, str] | None = None,
) -> tuple[list[dict], float]:
    """``pytest`` with ``arguments`` in ``profile``, on ``workers`` workers,
    compiling into ``cache``: its records and its wall time."""
    command = [
        sys.executable,
        "-m",
        "pytest",
        "--conformance-only",
        *([] if any(a.startswith("--specs") for a in arguments) else ["--catalog"]),
        f"--hypothesis-profile={profile}",
        f"-n{workers}",
        "--dist=worksteal",
        f"--inductor-cache={cache}",
        f"--repro-dir={out / 'repro'}",
        f"--report-json={report}",
        "-q",
        *arguments,
    ]
    began = time.monotonic()
    run = subprocess.run(
        command, cwd=CHECKOUT, env={**os.environ, **(env or {})}, capture_output=True, text=True
    )
    wall = time.monotonic() - began
    if run.returncode not in (0, 1):
        raise RuntimeError(f"pytest {' '.join(arguments)} did not run:\n{run.stdout[-3000:]}")
    return json.loads(report.read_text())["results"], wall
