"""What kept verdicts save: the ci gate judged in full, then served from the
store, side by side in one run.

Run from the checkout:  python -m benchmarks.store [--ops 10] [--workers 2]
                        [--no-catalog] [--out DIR]

Two parts, each into a fresh verdict store, on the same warm Inductor cache:

- the built-in catalog: a full run that warms the caches (``--rejudge``), a
  full warm run (``--rejudge``: every test judged, the caches warm), and a
  run with the store warm (nothing changed);
- a generated namespace of ``--ops`` ops of the activation family's size,
  one spec file each (``scaling_specs``'s op, written out): a full run, a
  run with the store warm, and a run after one op's fake changed (its spec
  file edited: that spec alone is judged again).

It prints each run's wall time and the ratios against the full warm run,
and writes the table to its section of ``benchmarks/RESULTS.md``.
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from benchmarks.gate import run_gate
from benchmarks.results import update

# The targets: a warm store's run, and a run after one change beyond its spec's own cost.
TARGET_SECONDS = 30

SPEC_FILE = """\
import torch

from torch_conformance.families.activation.specs import silu_spec

NAME = "store_bench::silu_and_mul_{number}"


@torch.library.custom_op(NAME, mutates_args=("result",))
def _op(result: torch.Tensor, input: torch.Tensor) -> None:
    half = result.shape[-1]
    result.copy_(torch.nn.functional.silu(input[..., :half]) * input[..., half:])


@_op.register_fake
def _(result, input):
    return None  # fake revision 0


SPECS = [silu_spec("store_bench_{number}", NAME, prepare=None)]
"""


def _timed(arguments: list[str], name: str, out: Path, cache: Path, workers: int) -> dict:
    results, wall = run_gate(arguments, out / f"{name}.json", cache, out, workers)
    return {
        "run": name,
        "wall_s": wall,
        "tests": len(results),
        "kept": sum(bool(r.get("kept")) for r in results),
        "failed": sum(r["outcome"] == "failed" for r in results),
    }


def catalog(out: Path, cache: Path, workers: int) -> list[dict]:
    store = [f"--verdict-store={out / 'catalog-store'}"]
    _timed([*store, "--rejudge"], "catalog-warming", out, cache, workers)
    return [
        _timed([*store, "--rejudge"], "catalog: full, caches warm", out, cache, workers),
        _timed(store, "catalog: store warm, nothing changed", out, cache, workers),
    ]


def generated(ops: int, out: Path, cache: Path, workers: int) -> list[dict]:
    folder = out / "generated"
    folder.mkdir(parents=True, exist_ok=True)
    for number in range(ops):
        (folder / f"specs_{number}.py").write_text(SPEC_FILE.format(number=number))
    specs = [f"--specs={folder / f'specs_{number}.py'}" for number in range(ops)]
    store = [f"--verdict-store={out / 'generated-store'}"]
    rows = [
        _timed([*specs, *store], f"{ops} ops: full, store cold", out, cache, workers),
        _timed([*specs, *store], f"{ops} ops: store warm", out, cache, workers),
    ]
    changed = folder / "specs_0.py"
    changed.write_text(changed.read_text().replace("revision 0", "revision 1"))
    rows.append(_timed([*specs, *store], f"{ops} ops: one fake changed", out, cache, workers))
    return rows


def table(rows: list[dict], workers: int, ops: int) -> str:
    full = {r["run"].partition(":")[0]: r["wall_s"] for r in rows if ": full" in r["run"]}
    lines = [
        f"Kept verdicts, {workers} workers, wall seconds; ratio: against the same part's full "
        f"run. Targets: a warm store's run at most {TARGET_SECONDS} s, and one change at most "
        f"{TARGET_SECONDS} s plus that spec's own cost (a full run's time over its {ops} ops).",
        "",
        "| run | tests | kept | failed | wall (s) | ratio |",
        "| --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    for row in rows:
        base = full.get(row["run"].partition(":")[0])
        ratio = f"{row['wall_s'] / base:.2f}" if base else "-"
        lines.append(
            f"| {row['run']} | {row['tests']} | {row['kept']} | {row['failed']} | "
            f"{row['wall_s']:.0f} | {ratio} |"
        )
    lines.append("")
    for row in rows:
        part = row["run"].partition(":")[0]
        if "store warm" in row["run"]:
            limit = TARGET_SECONDS
        elif "changed" in row["run"] and part in full:
            limit = TARGET_SECONDS + full[part] / ops
        else:
            continue
        met = "met" if row["wall_s"] <= limit else "not met"
        wall = row["wall_s"]
        lines.append(f"Target: {row['run']} in at most {limit:.0f} s: {wall:.0f} s, {met}.")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.store", description=__doc__)
    parser.add_argument("--ops", type=int, default=10)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--no-catalog", action="store_true", help="the generated namespace only")
    parser.add_argument("--out", type=Path, default=None)
    options = parser.parse_args(argv)
    out = options.out or Path(tempfile.mkdtemp(prefix="store-bench-"))
    cache = out / "inductor"
    rows = [] if options.no_catalog else catalog(out, cache, options.workers)
    rows += generated(options.ops, out, cache, options.workers)
    text = table(rows, options.workers, options.ops)
    print(text)
    update("store", text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
