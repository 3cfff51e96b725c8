"""Is every verdict a function of its Case? The gate run twice, its tests in
opposite orders, compared Case by Case.

    python -m torch_conformance.reports.orders [--out DIR] [PYTEST ARGS ...]

Runs ``pytest PYTEST ARGS --report-json DIR/forward.json``, then the same
with ``--reverse`` (the tests in reverse order, so each check runs after
others than before, and workers take other tests), each with a fresh
Inductor cache, and compares the Findings of every Case both runs judged
(``torch-conformance diff --per-case``). Exit status 1 where a Case's
Findings differ: something a check compiled or cached carried over into
another's verdict.

Example: ``python -m torch_conformance.reports.orders --hypothesis-profile=ci -n 2``.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from collections.abc import Iterable
from pathlib import Path

from torch_conformance.reports import diff


def main(argv: Iterable[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m torch_conformance.reports.orders", description=__doc__
    )
    parser.add_argument("--out", type=Path, default=Path("reports/out/orders"))
    options, pytest_args = parser.parse_known_args(None if argv is None else list(argv))
    reports = []
    for name, extra in (("forward", []), ("reversed", ["--reverse"])):
        report = options.out / f"{name}.json"
        command = [
            sys.executable, "-m", "pytest", *pytest_args, *extra, "--fresh-caches",
            f"--report-json={report}", "-q",
        ]  # fmt: skip
        print("$", " ".join(command), flush=True)
        subprocess.run(command, check=False)
        reports.append(report)
    return diff.main(["--per-case", *map(str, reports)])


if __name__ == "__main__":
    sys.exit(main())
