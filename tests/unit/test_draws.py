"""A derandomized search draws the same values whatever modules a test run
has loaded before it (``oracles.runner.draws``)."""

from __future__ import annotations

import importlib
import sys

from hypothesis import given, settings
from hypothesis import strategies as st

from torch_conformance.oracles.runner.draws import same_draws


def _drawn() -> list[int]:
    drawn: list[int] = []

    @settings(max_examples=300, derandomize=True, database=None)
    @given(st.integers(0, 10**6))
    def draw(value: int) -> None:
        drawn.append(value)

    draw()
    return drawn


def test_a_module_loaded_between_two_searches_changes_no_draw(tmp_path, monkeypatch):
    # A module of the kind a run loads when a test first needs it: literals in range.
    (tmp_path / "loaded_later.py").write_text(
        "SIZES = [" + ", ".join(str(1000 + 7919 * i) for i in range(100)) + "]\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    with same_draws():
        before = _drawn()
    pooled_before = _drawn()
    importlib.import_module("loaded_later")
    try:
        with same_draws():
            assert _drawn() == before
        # Without it, Hypothesis draws some values from the new module's literals.
        assert _drawn() != pooled_before
    finally:
        sys.modules.pop("loaded_later", None)
