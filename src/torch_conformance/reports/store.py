"""The verdict store: a passing test of a derandomized profile, kept under
a key of everything its verdict depends on
(``oracles.runner.dependencies``), and served again while that key holds.

A failure is never kept: a failing test runs every time. ``--rejudge``
ignores the store, and a profile that draws anew (``dev``) or judges a
release (``nightly``) never uses it. The store is one folder, ``verdicts/``
in the suite's cache folder beside Inductor's caches, one small JSON file a
verdict, named by its key: safe to cache in CI, and to delete.
"""

from __future__ import annotations

import datetime
import json
import os
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from torch_conformance.oracles.core.specification import Spec

# What a kept verdict holds of its test's record, to report it again.
KEPT_PROPERTIES = ("cases", "compiles", "signatures", "not_judgeable", "recording_edges")
# The profiles whose verdicts are never kept (nor served).
NEVER_KEPT = ("nightly",)


class VerdictStore:
    """The kept verdicts under ``folder``; ``serving`` False keeps new ones
    and serves none (``--rejudge``)."""

    def __init__(self, folder: Path, serving: bool = True):
        self.folder = Path(folder)
        self.serving = serving

    def _path(self, key: str) -> Path:
        return self.folder / key[:2] / f"{key}.json"

    def kept(self, key: str) -> dict[str, Any] | None:
        """The verdict kept under ``key``, or None."""
        try:
            record = json.loads(self._path(key).read_text())
        except (OSError, ValueError):
            return None
        return record if isinstance(record, dict) and record.get("key") == key else None

    def keep(self, key: str, test: str, properties: list[tuple[str, Any]]) -> None:
        """Keep a passing test's verdict: its tally and non-blocking Findings."""
        record = {
            "key": key,
            "test": test,
            "when": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
            "properties": [
                [name, value]
                for name, value in properties
                if name in KEPT_PROPERTIES or name == "finding"
            ],
        }
        path = self._path(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        # Written whole, then renamed: workers never read half a verdict.
        with tempfile.NamedTemporaryFile("w", dir=path.parent, delete=False) as file:
            json.dump(record, file)
        os.replace(file.name, path)


# The options that change what a test runs, beside its node id and specs.
_OPTIONS = ("--compiles", "--batch-size", "--modes", "--skip-examples", "--device")


def store_of(config: pytest.Config) -> VerdictStore | None:
    """Where this run keeps verdicts; None where it keeps none: a
    ``--replay``, a profile that draws anew or that never keeps. Under
    ``--rejudge`` it serves none, and keeps what it judges anew."""
    from hypothesis import settings

    from torch_conformance.oracles.core.locations import cache_root

    if config.getoption("--replay") is not None:
        return None
    if not settings().derandomize or settings.get_current_profile_name() in NEVER_KEPT:
        return None
    folder = config.getoption("--verdict-store") or cache_root() / "verdicts"
    return VerdictStore(folder, serving=not config.getoption("--rejudge"))


def verdict_key(
    config: pytest.Config,
    nodeid: str,
    specs: Sequence[Spec],
    ops: Sequence[Any] = (),
) -> str | None:
    """The key of a test's verdict: the suite, the machine, the profile and
    options, the test, its ``specs`` and what their ops are made of (and of
    ``ops``, a namespace's); None where what it depends on cannot be told."""
    from hypothesis import settings

    from torch_conformance.oracles.runner import dependencies
    from torch_conformance.plugin import ORIGINS

    origins = config.stash.get(ORIGINS, {})
    try:
        for spec in specs:
            if spec.prepare is not None:
                spec.prepare()  # its op loaded, as the test loads it
        return dependencies.key(
            dependencies.suite(),
            dependencies.machine(str(config.getoption("--device"))),
            repr(settings()),
            [(option, str(config.getoption(option))) for option in _OPTIONS],
            nodeid,
            [dependencies.spec_key(spec, origins.get(spec.name)) for spec in specs],
            [dependencies.op_parts(op) for op in ops],
        )
    except Exception:  # what it depends on cannot be told (or loaded): not kept
        return None


def serve(store: VerdictStore | None, key: str | None, node: pytest.Item) -> bool:
    """Give ``node`` the verdict kept under ``key``, if one is: its record
    again, and when it was judged. False where none is kept."""
    if store is None or not store.serving or key is None:
        return False
    kept = store.kept(key)
    if kept is None:
        return False
    node.user_properties += [(name, value) for name, value in kept["properties"]]
    node.user_properties.append(("kept", kept["when"]))
    return True
