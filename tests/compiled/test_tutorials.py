"""Each tutorial runs as written: its files (``docs/tutorials/<name>/``)
copied into a folder outside the checkout, every ``$`` command of its
``console`` blocks run there, in order, against the installed package,
and what the tutorial says a command prints found in what it printed (in
order; ``...`` stands for anything)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

TUTORIALS = Path(__file__).resolve().parents[2] / "docs" / "tutorials"


def commands(page: Path) -> list[tuple[str, list[str]]]:
    """Each ``$`` command of the page's console blocks, and the lines it shows after it."""
    found: list[tuple[str, list[str]]] = []
    for block in re.findall(r"```console\n(.*?)```", page.read_text(), re.S):
        for line in block.splitlines():
            if line.startswith("$ "):
                found.append((line[2:], []))
            elif found:
                found[-1][1].append(line)
    return found


def shown(expected: list[str], output: str) -> list[str]:
    """The expected lines not found in ``output``, in order (``...``: anything)."""
    lines = output.splitlines()
    at, missing = 0, []
    for want in (w.strip() for w in expected if w.strip() and w.strip() != "..."):
        hit = next((i for i in range(at, len(lines)) if want in lines[i]), None)
        if hit is None:
            missing.append(want)
        else:
            at = hit + 1
    return missing


@pytest.mark.parametrize("name", ["first-spec", "check-a-namespace"])
def test_every_command_of_the_tutorial_prints_what_it_says(name, tmp_path):
    page = TUTORIALS / f"{name}.md"
    for file in (TUTORIALS / name).iterdir():
        shutil.copy(file, tmp_path)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    steps = commands(page)
    assert steps, f"{page.name} has no console block"
    for command, expected in steps:
        done = subprocess.run(
            command, shell=True, cwd=tmp_path, capture_output=True, text=True, timeout=1800, env=env
        )
        output = done.stdout + done.stderr
        assert not shown(expected, output), (command, shown(expected, output), output[-3000:])
