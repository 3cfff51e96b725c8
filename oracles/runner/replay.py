"""Replays: the Cases of one failing Hypothesis example, saved to run them again."""

from __future__ import annotations

import dataclasses
import pickle
from pathlib import Path

from oracles.core.case import Case
from oracles.core.spec import SpecError


@dataclasses.dataclass(frozen=True)
class Replay:
    """The Cases one failing Hypothesis example ran, to run them again."""

    spec: str
    check: str
    cases: tuple[Case, ...]
    index: int  # the failing Case
    batched: bool
    mode: str

    def save(self, path: Path) -> Path:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(pickle.dumps(self))
        return path

    @staticmethod
    def load(path: Path) -> Replay:
        replay = pickle.loads(Path(path).read_bytes())
        if not isinstance(replay, Replay):
            raise SpecError(f"{path} holds no Cases to replay")
        return replay


@dataclasses.dataclass(frozen=True)
class ReproOptions:
    """Where a failure's repro files go, and the command that reruns a test."""

    folder: Path
    rerun: str  # a command line; " --replay=<file>" is appended


def shown(path: Path) -> Path:
    """``path`` relative to the working directory where it lies below it."""
    try:
        return path.resolve().relative_to(Path.cwd())
    except ValueError:
        return path
