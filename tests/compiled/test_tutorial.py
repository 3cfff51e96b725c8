"""The tutorial's worked spec example (docs/tutorials/first-spec.md) loads
and passes every check."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from hypothesis import settings

from oracles.checks import CHECKS
from oracles.runner.loading import load_specs
from oracles.runner.property import run_property

TUTORIAL = Path(__file__).resolve().parents[2] / "docs" / "tutorials" / "first-spec.md"


def test_worked_example_passes(tmp_path):
    code = re.search(r"```python\n(# my_specs.py.*?)```", TUTORIAL.read_text(), re.S).group(1)
    path = tmp_path / "my_specs.py"
    path.write_text(code)
    [spec] = load_specs(str(path))
    for check in CHECKS:
        # Derandomized: a run of the suite's own tests is the same run on any machine.
        run_property(spec, check, settings(max_examples=20, derandomize=True))


def test_the_finished_file_passes_the_gate_as_the_tutorial_runs_it(tmp_path):
    """``pytest --specs=my_specs.py`` with no ``-k``: every check and the
    registry lint of the tutorial's namespace."""
    code = re.search(r"```python\n(# my_specs.py.*?)```", TUTORIAL.read_text(), re.S).group(1)
    path = tmp_path / "my_specs.py"
    path.write_text(code)
    done = subprocess.run(
        [sys.executable, "-m", "pytest", f"--specs={path}", "-p", "no:cacheprovider", "-n", "0"],
        cwd=TUTORIAL.parents[2],
        capture_output=True,
        text=True,
        timeout=1200,
    )
    assert done.returncode == 0, done.stdout[-4000:]
    assert "suites/test_registry.py ." in done.stdout  # the lint ran, and passed
