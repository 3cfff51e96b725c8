"""Seed 001's question: does an explicit Inductor fallback for every custom
op make a compile of a many-op graph faster than the implicit ones?

Run from the checkout:  python -m benchmarks.fallbacks [--calls 300 3000]
                        [--python PYTHON ...]

A namespace of ``--ops`` custom ops (fakes registered, no lowering) and a
program of N calls to them, each on the last one's output scaled by 2 or 1/2
(``--depth`` times) and negated after (model code between kernels, kept
exact), is compiled by
Inductor with the caches off, in a fresh process per measurement: with the
fallbacks Inductor makes implicitly, and after
``torch_conformance.registry.register_fallbacks`` made them explicit, twice each in
the order implicit, explicit, explicit, implicit (the faster run counts). A measurement
counts only if the compiled program is one graph, ran every op call, and
agrees with eager bit for bit. ``--python`` runs the same under other
interpreters (other torch releases, with this project installed), one row
each; the table goes to its section of ``benchmarks/RESULTS.md``.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CHECKOUT = Path(__file__).resolve().parent.parent
NAMESPACE = "bench_fallbacks"
ORDER = (False, True, True, False)  # explicit?


def measure(calls: int, ops: int, explicit: bool, depth: int = 1) -> dict:
    """Compile and run the program once, in this (fresh) process."""
    import torch

    from torch_conformance.oracles.lint.fallbacks import (
        EXPLICIT_FALLBACK,
        lowering_of,
        register_fallbacks,
    )

    ran = [0]
    library = torch.library.Library(NAMESPACE, "DEF")
    for i in range(ops):
        library.define(f"op{i}(Tensor x) -> Tensor")
        library.impl(f"op{i}", lambda x: ran.__setitem__(0, ran[0] + 1) or x.clone(), "CPU")
        torch.library.register_fake(
            f"{NAMESPACE}::op{i}", lambda x: x.new_empty(x.shape), lib=library
        )
    namespace = getattr(torch.ops, NAMESPACE)
    kernels = [getattr(namespace, f"op{i}").default for i in range(ops)]

    def program(x: torch.Tensor) -> torch.Tensor:
        for j in range(calls):
            for k in range(depth):  # exact, and bounded: x2 and x0.5 in turn
                x = x * (2.0 if (j + k) % 2 == 0 else 0.5)
            x = kernels[j % ops](x).neg()
        return x

    if explicit:
        register_fallbacks(NAMESPACE)
    x = torch.randn(64)
    want = program(x)
    ran[0] = 0
    compiled = torch.compile(program, backend="inductor", fullgraph=True)
    start = time.perf_counter()
    got = compiled(x)
    seconds = time.perf_counter() - start
    graphs = torch._dynamo.utils.counters["stats"]["unique_graphs"]
    problems = []
    if graphs != 1:
        problems.append(f"{graphs} graphs compiled, not 1")
    if ran[0] != calls:
        problems.append(f"the compiled program ran {ran[0]} op calls, not {calls}")
    if not torch.equal(got.view(torch.int32), want.view(torch.int32)):
        problems.append("the compiled program disagrees with eager")
    if any(lowering_of(k) != EXPLICIT_FALLBACK for k in kernels):
        problems.append("an op has no fallback after the compile")
    return {
        "torch": torch.__version__,
        "calls": calls,
        "depth": depth,
        "explicit": explicit,
        "seconds": seconds,
        "problems": problems,
    }


def run_worker(python: str, calls: int, ops: int, explicit: bool, depth: int) -> dict:
    """``measure`` in a fresh process of ``python``, with a fresh, disabled cache."""
    with tempfile.TemporaryDirectory(prefix="fallbacks-") as cache:
        env = {
            **os.environ,
            "TORCHINDUCTOR_CACHE_DIR": cache,
            "TORCHINDUCTOR_FORCE_DISABLE_CACHES": "1",
        }
        command = [python, "-m", "benchmarks.fallbacks", "--worker", str(calls), str(ops)]
        command += ["--depth", str(depth)]
        done = subprocess.run(
            [*command, *(["--explicit"] if explicit else [])],
            cwd=CHECKOUT,
            env=env,
            capture_output=True,
            text=True,
        )
    if done.returncode != 0:
        tail = " / ".join(done.stderr.strip().splitlines()[-3:])
        raise RuntimeError(f"{python}: the measurement failed: {tail}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def _release(row: dict) -> list[int]:
    """A row's torch release as numbers, so 2.9 sorts before 2.10."""
    return [int(n) for n in re.findall(r"\d+", row["torch"])[:3]]


def render(rows: list[tuple[dict, dict]], ops: int) -> str:
    lines = [
        "## Explicit vs implicit Inductor fallbacks (seed 001)",
        "",
        "`python -m benchmarks.fallbacks`: a graph of N calls to "
        f"{ops} custom ops (fakes, no lowering), with D pointwise scalings by 2 or "
        "1/2 before and `neg` after each; Inductor, caches off, a fresh process per "
        "compile; compile and first run, seconds, the faster of two runs each way "
        "(implicit, explicit, explicit, implicit). Implicit: Inductor makes each "
        "fallback on the spot; explicit: `torch_conformance.registry.register_fallbacks` "
        "before the compile.",
        "",
        "| torch | N | D | implicit (s) | explicit (s) | implicit / explicit |",
        "| --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    for implicit, explicit in sorted(rows, key=lambda pair: (_release(pair[0]), pair[0]["calls"])):
        ratio = implicit["seconds"] / explicit["seconds"]
        lines.append(
            f"| {implicit['torch']} | {implicit['calls']} | {implicit['depth']} | "
            f"{implicit['seconds']:.1f} | "
            f"{explicit['seconds']:.1f} | {ratio:.2f}x |"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, nargs="+", default=[300, 3000])
    parser.add_argument("--ops", type=int, default=30)
    parser.add_argument("--python", nargs="+", default=[sys.executable])
    parser.add_argument("--worker", type=int, nargs=2, metavar=("CALLS", "OPS"))
    parser.add_argument("--explicit", action="store_true")
    parser.add_argument(
        "--depth", type=int, default=1, help="pointwise ops before each call (default 1)"
    )
    options = parser.parse_args()
    if options.worker:
        print(json.dumps(measure(*options.worker, options.explicit, options.depth)))
        return
    rows = []
    for python in options.python:
        for calls in options.calls:
            # Implicit, explicit, explicit, implicit: neither way always runs
            # first (into cold file caches); each keeps its faster run.
            runs = [run_worker(python, calls, options.ops, e, options.depth) for e in ORDER]
            for row in runs:
                if row["problems"]:
                    raise SystemExit(f"{python}, N={calls}: {'; '.join(row['problems'])}")
            pair = tuple(
                min((r for r in runs if r["explicit"] == e), key=lambda r: r["seconds"])
                for e in (False, True)
            )
            print(
                f"  torch {pair[0]['torch']}, N={calls}: {pair[0]['seconds']:.1f} s "
                f"implicit, {pair[1]['seconds']:.1f} s explicit",
                flush=True,
            )
            rows.append(pair)
    report = render(rows, options.ops)
    from benchmarks import results

    results.update("fallbacks", report)
    print(report)


if __name__ == "__main__":
    main()
