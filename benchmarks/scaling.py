"""How the ci gate's cost grows with a namespace: generated namespaces of 10,
50 and 100 ops of the activation family's size (``benchmarks/scaling_specs``),
each run as a user runs their own specs, cold; and what a warm cache saves.

Run from the checkout:  python -m benchmarks.scaling [--ops 10 50 100]
                        [--warm] [--gate] [--workers 2] [--out DIR]

Each size runs ``pytest --hypothesis-profile=ci --specs=benchmarks/scaling_specs.py``
in a process of its own, into a fresh Inductor cache, and reads its JSON
report; ``--warm`` runs it again at once into the same cache, as a CI job
that keeps its cache between runs (docs/how-to/ci-gate.md, "Warm caches").
``--gate`` runs the built-in ci gate (every family, check and ci Mode, the known
faults' scripts) instead of the generated namespaces, cold and warm. It
prints, per run, the wall time, the core-seconds per op (per spec, for the
built-in gate), and where they go: per check (the compiled check's include
triage and shrinking), and the rest, which is process start, collection,
the known faults' scripts and idle workers. Growth is the core-seconds per
op against the first cold run's: 1.00 is linear. The tables go to their
sections of ``benchmarks/RESULTS.md``.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

import torch

from benchmarks.gate import run_gate
from benchmarks.results import update

CHECKOUT = Path(__file__).resolve().parent.parent
# The target: core-seconds per op in the ci gate.
TARGET_CORE_SECONDS = 15.0
# The target: the largest namespace's cost per op against the smallest's.
TARGET_GROWTH = 1.2
CHECKS = ("reference", "fake", "schema", "compiled", "programs")


def gate_cost(ops: int | None, workers: int, out: Path, cache: Path, warm: bool) -> dict:
    """The ci gate over a generated namespace of ``ops`` ops (None: the
    built-in catalog), compiling into ``cache``: its cost, by check."""
    name = "built-in" if ops is None else f"{ops} ops"
    report = out / f"{name.replace(' ', '-')}-{'warm' if warm else 'cold'}.json"
    arguments, env = [], {}
    if ops is not None:
        arguments.append("--specs=benchmarks/scaling_specs.py")
        env["CONFORMANCE_SCALING_OPS"] = str(ops)
    results, wall = run_gate(arguments, report, cache, out, workers, env=env)
    by_check: dict[str, float] = defaultdict(float)
    for result in results:
        by_check[result["check"]] += result["duration_s"]
    return {
        "name": name,
        "ops": ops or len({r["spec"] for r in results if r["check"] in CHECKS}),
        "cache": "warm" if warm else "cold",
        "wall_s": wall,
        "core_s": wall * workers,
        "by_check": dict(by_check),
        "compiles": sum(r.get("compiles") or 0 for r in results),
        "failed": sum(r["outcome"] == "failed" for r in results),
    }


def table(rows: list[dict], workers: int, gate: bool) -> str:
    first = rows[0]["core_s"] / rows[0]["ops"]
    head = (
        "| ops | cache | wall s | core-s per op | growth | "
        + " | ".join(CHECKS)
        + " | the rest | compiles per op | failed tests |"
    )
    lines = [head, "| --- | --- | " + " | ".join(["---:"] * (len(CHECKS) + 6)) + " |"]
    for row in rows:
        ops = row["ops"]
        per_op = row["core_s"] / ops
        checks = [row["by_check"].get(check, 0.0) / ops for check in CHECKS]
        rest = per_op - sum(row["by_check"].get(check, 0.0) for check in CHECKS) / ops
        cells = [
            f"{row['name']} ({ops} specs)" if gate else str(ops),
            row["cache"],
            f"{row['wall_s']:.0f}",
            f"{per_op:.1f}",
            f"{per_op / first:.2f}",
            *(f"{c:.1f}" for c in checks),
            f"{rest:.1f}",
            f"{row['compiles'] / ops:.1f}",
            str(row["failed"]),
        ]
        lines.append("| " + " | ".join(cells) + " |")
    subject = (
        "the built-in ci gate (every family, check and ci Mode; the rest includes the "
        "known faults' scripts)"
        if gate
        else "the ci gate over generated namespaces of ops of the activation family's size"
    )
    text = [
        "# Scaling benchmark" if not gate else "# The built-in gate, cold and warm",
        "",
        f"torch {torch.__version__}, `python -m benchmarks.scaling{' --gate' if gate else ''}`, "
        f"{workers} workers: {subject}. Cold: a fresh Inductor cache; warm: the same cache, "
        "run again at once. Per-check columns are core-seconds per op (per spec); growth is "
        "core-seconds per op against the first row's.",
        "",
        *lines,
    ]
    if not gate:
        cold = [row for row in rows if row["cache"] == "cold"]
        met = all(row["core_s"] / row["ops"] <= TARGET_CORE_SECONDS for row in cold)
        growth = (cold[-1]["core_s"] / cold[-1]["ops"]) / (cold[0]["core_s"] / cold[0]["ops"])
        text += [
            "",
            f"Target: at most {TARGET_CORE_SECONDS:.0f} core-seconds per op, cold: "
            + ("met." if met else "not met."),
            f"Target: the {cold[-1]['ops']}-op / {cold[0]['ops']}-op cost per op at most "
            f"{TARGET_GROWTH}: {growth:.2f}, "
            + ("met." if growth <= TARGET_GROWTH else "not met."),
        ]
    return "\n".join(text)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ops", type=int, nargs="+", default=[10, 50, 100])
    parser.add_argument("--warm", action="store_true", help="rerun each size warm")
    parser.add_argument(
        "--gate", action="store_true", help="the built-in gate, cold and warm, instead"
    )
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args(argv)
    out = args.out or Path(tempfile.mkdtemp(prefix="conformance-scaling-"))
    out.mkdir(parents=True, exist_ok=True)
    rows = []
    for ops in [None] if args.gate else sorted(args.ops):
        cache = Path(tempfile.mkdtemp(prefix="conformance-inductor-", dir=out))
        for warm in (False, True) if args.gate or args.warm else (False,):
            row = gate_cost(ops, args.workers, out, cache, warm)
            rows.append(row)
            print(f"{row['name']}, {row['cache']}: {row['wall_s']:.0f} s", flush=True)
        shutil.rmtree(cache, ignore_errors=True)
    text = table(rows, args.workers, args.gate)
    print(text)
    update("gate" if args.gate else "scaling", text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
