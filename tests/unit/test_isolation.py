"""A Case that may kill its process is run in a forked child: one prober
child runs Case after Case, and a death is confirmed in a child of its own."""

from __future__ import annotations

import os
from pathlib import Path

from torch_conformance.oracles.core.isolation import Prober, killed_by

# What a prober's child did before: a state that a fresh child lacks.
POISONED: list[bool] = []


def _run(item: str, pids: Path) -> None:
    with pids.open("a") as file:
        file.write(f"{os.getpid()}\n")
    if item == "poison":
        POISONED.append(True)
    elif item == "abort" or (item == "fragile" and POISONED):
        os.abort()
    elif item == "raise":
        raise ValueError("a refusal by raising is no death")


def test_one_child_runs_case_after_case_and_a_death_ends_it(tmp_path):
    pids = tmp_path / "pids"
    prober = Prober(lambda item: _run(item, pids))
    assert [prober.killed_by(item) for item in ("a", "raise", "b")] == [None, None, None]
    assert len(set(pids.read_text().split())) == 1
    assert prober.killed_by("abort") == "SIGABRT"
    assert prober.killed_by("c") is None
    # The prober's child, the confirming child, and the next prober.
    assert len(set(pids.read_text().split())) == 3
    prober.close()


def test_a_death_the_state_of_the_probers_child_caused_is_no_refusal(tmp_path):
    prober = Prober(lambda item: _run(item, tmp_path / "pids"))
    assert prober.killed_by("poison") is None
    # In the prober's child, "fragile" dies of what "poison" left; in a child of its own it lives.
    assert prober.killed_by("fragile") is None
    assert not POISONED
    prober.close()


def test_an_item_that_does_not_pickle_gets_a_child_of_its_own():
    prober = Prober(lambda item: item())
    assert prober.killed_by(lambda: os.abort()) == "SIGABRT"
    assert prober.killed_by(lambda: None) is None
    assert killed_by(lambda: None) is None
