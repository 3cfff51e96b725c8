"""Several ``pytest --collect-only`` runs of the checkout in one process.

What a command line selects is decided at collection; a fresh process per
command line spends most of its time importing torch and the suite, so the
runs share one process, each its own ``pytest.main`` (the Hypothesis
profile put back to ``dev`` between them, as a fresh process starts).
"""

from __future__ import annotations

import contextlib
import dataclasses
import io
import json
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

CHECKOUT = Path(__file__).resolve().parents[1]


@dataclasses.dataclass(frozen=True)
class Collection:
    returncode: int
    stdout: str
    stderr: str


def collect(*runs: Sequence[str]) -> list[Collection]:
    """Each run's collection (its command-line arguments), in order."""
    done = subprocess.run(
        [sys.executable, "-m", "tests.collecting", json.dumps([list(run) for run in runs])],
        cwd=CHECKOUT,
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        raise RuntimeError(f"the collections did not run: {done.stderr[-3000:]}")
    return [Collection(**result) for result in json.loads(done.stdout)]


def _main(runs: list[list[str]]) -> None:
    import pytest
    from hypothesis import settings

    results = []
    for run in runs:
        stdout, stderr = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
            own = any(a.startswith(("--specs", "--specs-from")) for a in run)
            suite = ["--conformance-only", *([] if own else ["--catalog"])]
            code = pytest.main(["--collect-only", "-q", "-n", "0", *suite, *run])
        settings.load_profile("dev")
        results.append(
            {"returncode": int(code), "stdout": stdout.getvalue(), "stderr": stderr.getvalue()}
        )
    json.dump(results, sys.__stdout__)


if __name__ == "__main__":
    _main(json.loads(sys.argv[1]))
