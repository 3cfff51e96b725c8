"""How the ci gate's cost grows with a namespace: generated namespaces of 10,
50 and 100 ops of the activation family's size (``benchmarks/scaling_specs``),
each run as a user runs their own specs, cold.

Run from the checkout:  python -m benchmarks.scaling [--ops 10 50 100]
                        [--workers 2] [--out DIR]

Each size runs ``pytest --hypothesis-profile=ci --specs=benchmarks/scaling_specs.py
--fresh-caches`` in a process of its own and reads its JSON report. It prints,
per size, the wall time, the core-seconds per op, and where they go: per
check (the compiled check's include triage and shrinking), and the rest, which
is process start, collection and idle workers. Growth is the core-seconds
per op against the smallest size's: 1.00 is linear. The table goes to its
section of ``benchmarks/RESULTS.md``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

import torch

from benchmarks.results import update

CHECKOUT = Path(__file__).resolve().parent.parent
# The target: core-seconds per op in the ci gate.
TARGET_CORE_SECONDS = 10.0
CHECKS = ("reference", "fake", "schema", "compiled", "programs")


def run_size(ops: int, workers: int, out: Path) -> dict:
    """The ci gate over a generated namespace of ``ops`` ops: its cost, by check."""
    report = out / f"scaling-{ops}.json"
    command = [
        sys.executable,
        "-m",
        "pytest",
        "--hypothesis-profile=ci",
        f"-n{workers}",
        "--dist=worksteal",
        "--specs=benchmarks/scaling_specs.py",
        "--fresh-caches",
        f"--repro-dir={out / 'repro'}",
        f"--report-json={report}",
        "-q",
    ]
    env = {**os.environ, "CONFORMANCE_SCALING_OPS": str(ops)}
    began = time.monotonic()
    run = subprocess.run(command, cwd=CHECKOUT, env=env, capture_output=True, text=True)
    wall = time.monotonic() - began
    if run.returncode not in (0, 1):
        raise RuntimeError(f"the gate over {ops} ops did not run:\n{run.stdout[-3000:]}")
    results = json.loads(report.read_text())["results"]
    by_check: dict[str, float] = defaultdict(float)
    for result in results:
        by_check[result["check"]] += result["duration_s"]
    return {
        "ops": ops,
        "wall_s": wall,
        "core_s": wall * workers,
        "by_check": dict(by_check),
        "compiles": sum(r.get("compiles") or 0 for r in results),
        "failed": sum(r["outcome"] == "failed" for r in results),
    }


def table(rows: list[dict], workers: int) -> str:
    first = rows[0]["core_s"] / rows[0]["ops"]
    head = (
        "| ops | wall s | core-s per op | growth | "
        + " | ".join(CHECKS)
        + " | process start, idle | compiles per op | failed tests |"
    )
    lines = [head, "| " + " | ".join(["---:"] * (len(CHECKS) + 7)) + " |"]
    for row in rows:
        ops = row["ops"]
        per_op = row["core_s"] / ops
        checks = [row["by_check"].get(check, 0.0) / ops for check in CHECKS]
        rest = per_op - sum(row["by_check"].values()) / ops
        cells = [
            str(ops),
            f"{row['wall_s']:.0f}",
            f"{per_op:.1f}",
            f"{per_op / first:.2f}",
            *(f"{c:.1f}" for c in checks),
            f"{rest:.1f}",
            f"{row['compiles'] / ops:.1f}",
            str(row["failed"]),
        ]
        lines.append("| " + " | ".join(cells) + " |")
    met = all(row["core_s"] / row["ops"] <= TARGET_CORE_SECONDS for row in rows)
    return "\n".join(
        [
            "# Scaling benchmark",
            "",
            f"torch {torch.__version__}, `python -m benchmarks.scaling`, {workers} workers, "
            "cold (fresh Inductor caches): the ci gate over generated namespaces of ops of "
            "the activation family's size. Per-check columns are core-seconds per op; "
            "growth is core-seconds per op against the smallest namespace's.",
            "",
            *lines,
            "",
            f"Target: at most {TARGET_CORE_SECONDS:.0f} core-seconds per op: "
            + ("met." if met else "not met."),
        ]
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ops", type=int, nargs="+", default=[10, 50, 100])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args(argv)
    out = args.out or Path(tempfile.mkdtemp(prefix="conformance-scaling-"))
    out.mkdir(parents=True, exist_ok=True)
    rows = []
    for ops in sorted(args.ops):
        rows.append(run_size(ops, args.workers, out))
        print(f"{ops} ops: {rows[-1]['wall_s']:.0f} s", flush=True)
    text = table(rows, args.workers)
    print(text)
    update("scaling", text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
