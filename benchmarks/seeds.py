"""The dev profile's generated programs over the built-in catalog, drawn
afresh under many seeds: does any draw show a torch fault that no known
fault explains?

Run from the checkout:  python -m benchmarks.seeds [--seeds 0 1 2 ...]
                        [--workers 2] [--out DIR] [--results]

Each seed runs ``pytest -k test_programs --hypothesis-seed=SEED`` (the
plain ``pytest`` of the README, dev profile, its programs check alone) in a
process of its own. The catalog's ops are correct, so every failed test is
a finding: a torch fault the catalogue of known faults (``upstream/``)
lacks, or a defect of the suite. The table gives per seed the tests run,
the failures and their first Finding, and how many known faults triage
matched (non-blocking, so their tests pass). ``--results`` writes it to its
section of ``benchmarks/RESULTS.md``.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import torch

from benchmarks.gate import run_gate
from benchmarks.results import update


def seed_run(seed: int, workers: int, out: Path) -> dict:
    """One seed's programs check over the catalog: what failed, and the
    known faults its triage matched."""
    report = out / f"seed-{seed}.json"
    arguments = ["-k", "test_programs", f"--hypothesis-seed={seed}"]
    results, wall = run_gate(arguments, report, out / "inductor", out, workers, profile="dev")
    failed = [r for r in results if r["outcome"] == "failed"]
    known = {f["fault"] for r in results for f in r.get("findings") or () if f.get("fault")}
    return {"seed": seed, "tests": len(results), "wall_s": wall, "failed": failed, "known": known}


def _first_finding(result: dict) -> str:
    findings = [f for f in result.get("findings") or () if f["blocking"]]
    if not findings:
        return f"{result['test']}: no Finding recorded"
    first = findings[0]
    return f"{result['test']}: [{first['verdict']}] {first['message'][:160]}"


def table(rows: list[dict]) -> str:
    lines = [
        "| seed | tests | wall s | failed | known faults matched | first Finding of each failure |",
        "| ---: | ---: | ---: | ---: | ---: | --- |",
    ]
    for row in rows:
        failures = "<br>".join(_first_finding(r) for r in row["failed"]) or "-"
        cells = [row["seed"], row["tests"], f"{row['wall_s']:.0f}", len(row["failed"])]
        lines.append("| " + " | ".join(map(str, cells)) + f" | {len(row['known'])} | {failures} |")
    clean = sum(not row["failed"] for row in rows)
    return "\n".join(
        [
            "# Generated programs under many seeds",
            "",
            f"torch {torch.__version__}, `python -m benchmarks.seeds`: the dev profile's "
            "programs check over the built-in catalog, one run per seed, each drawn afresh. "
            "A failure is a torch fault no known fault explains, or a defect of the suite.",
            "",
            *lines,
            "",
            f"{clean} of {len(rows)} runs clean.",
        ]
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=list(range(5)))
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--results", action="store_true", help="write RESULTS.md's section")
    args = parser.parse_args(argv)
    out = args.out or Path(tempfile.mkdtemp(prefix="conformance-seeds-"))
    out.mkdir(parents=True, exist_ok=True)
    rows = []
    for seed in args.seeds:
        row = seed_run(seed, args.workers, out)
        rows.append(row)
        print(f"seed {seed}: {len(row['failed'])} failed of {row['tests']}", flush=True)
    text = table(rows)
    print(text)
    if args.results:
        update("seeds", text)
    return 0 if all(not row["failed"] for row in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
