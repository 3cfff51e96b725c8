"""The README's worked spec example loads and passes every check."""

from __future__ import annotations

import re
from pathlib import Path

from hypothesis import settings

from oracles.checks import CHECKS
from oracles.runner.loading import load_specs
from oracles.runner.property import run_property

README = Path(__file__).resolve().parents[2] / "README.md"


def test_worked_example_passes(tmp_path):
    code = re.search(r"```python\n(# my_specs.py.*?)```", README.read_text(), re.S).group(1)
    path = tmp_path / "my_specs.py"
    path.write_text(code)
    [spec] = load_specs(str(path))
    for check in CHECKS:
        # Derandomized: a run of the suite's own tests is the same run on any machine.
        run_property(spec, check, settings(max_examples=20, derandomize=True))
