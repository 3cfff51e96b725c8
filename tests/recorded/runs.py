"""The spec-less route as a user runs it, for the tests: a recording made by
``python -m torch_conformance.suites.record``, then ``pytest --specs-from`` with a JSON report."""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

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


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    with open(path, "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def _once(path: Path, make: Callable[[], str]) -> str:
    """The text at ``path``, made by ``make`` if no worker made it yet."""
    with _locked(path.with_suffix(".lock")):
        if not path.exists():
            path.write_text(make())
    return path.read_text()


def recorded_once(
    tmp_path_factory: pytest.TempPathFactory, name: str, namespaces: str, *command: str
) -> tuple[Path, str]:
    """``record`` into a folder ``name`` that every worker of this test run
    shares, made once however the workers split a module's tests; the
    recording and the summary it printed."""
    base = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        base = base.parent
    (base / name).mkdir(exist_ok=True)
    out = base / name / "calls.json"
    return out, _once(out.with_name("summary.txt"), lambda: record(namespaces, out, *command))


def spec_less_once(recording: Path, *options: str, workers: int = 0) -> tuple[list[dict], str]:
    """``run_spec_less`` of a shared recording, run once however the workers
    split a module's tests: its records and what it printed."""
    printed = _once(
        recording.with_name("spec-less.txt"),
        lambda: run_spec_less(recording, *options, workers=workers)[1].stdout,
    )
    return json.loads(recording.with_name("report.json").read_text())["results"], printed
