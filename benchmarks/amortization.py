"""How fast the checks run, side by side on the same Cases, and what compiles cost.

Run from the checkout:  python -m benchmarks.amortization [--examples N]

Measures, on one list of Cases drawn once for ``rotary_embedding_functional``:

- the suite's fake check against ``torch.library.opcheck`` with only
  ``test_faketensor``, on the same inputs;
- the suite's Inductor check with a cold cache and again with a warm one,
  with one dynamic-shape compile per Signature, and the same over Cases
  drawn in batches that share a structure (the rows after it use other
  Cases: the batches);
- a naive baseline that resets Dynamo and compiles every example;
- a bare Hypothesis-style loop: one ``torch.compile(dynamic=True)`` of the
  same program, called per Case and compared with ``torch.equal`` (the
  closest thing to the limit);
- for each zoo case, how long the ``ci`` profile takes to produce its Finding.

It prints a table of ratios and writes it to ``benchmarks/RESULTS.md``.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import torch
import torch._inductor.config as inductor_config
from hypothesis import HealthCheck, Phase, given, settings

import conftest  # noqa: F401  (registers the Hypothesis profiles)
from oracles.checks import check_fake, check_inductor
from oracles.compile import compiled_programs, use_cache_root
from oracles.findings import ConformanceFailure
from oracles.modes import program_of
from oracles.properties import run_property
from oracles.rope_cases import rope_cases_of, rope_structures
from oracles.signature import bind, signature_of
from suites import rope, zoo

RESULTS = Path(__file__).with_name("RESULTS.md")
# Cases drawn per rope structure for the batched row.
BATCH = 20


def draw_cases(strategy, count: int) -> list:
    """``count`` Cases, the same on every run."""
    cases = []

    @settings(
        max_examples=count,
        derandomize=True,
        database=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
        deadline=None,
    )
    @given(strategy)
    def collect(case):
        cases.append(case)

    collect()
    return cases[:count]


def timed(
    label: str,
    cases: list,
    run: Callable,
    compiles: Callable[[], int] | None = None,
    warm_up: int = 0,
) -> dict:
    for case in cases[:warm_up]:  # first-call costs are not the mode's
        run(case)
    start = time.perf_counter()
    before = compiles() if compiles else 0
    for case in cases:
        run(case)
    seconds = time.perf_counter() - start
    made = (compiles() - before) if compiles else None
    row = {
        "mode": label,
        "examples": len(cases),
        "seconds": seconds,
        "per_s": len(cases) / seconds,
        "compiles_per_1000": None if made is None else 1000 * made / len(cases),
    }
    print(f"  {label}: {row['per_s']:.2f} examples/s", flush=True)
    return row


def opcheck_fake(spec, case) -> None:
    args = case.bind(case.allocate())
    torch.library.opcheck(spec.overload, (), args, test_utils=("test_faketensor",))


class Counter:
    def __init__(self):
        self.compiles = 0

    def backend(self, gm, example_inputs):
        from torch._inductor.compile_fx import compile_fx

        self.compiles += 1
        return compile_fx(gm, example_inputs)


def naive(spec, counter: Counter):
    def run(case):
        names, program = program_of(spec, case)
        eager = program(*(case.allocate()[n] for n in names))
        torch._dynamo.reset()
        compiled = torch.compile(program, backend=counter.backend, fullgraph=True)
        buffers = case.allocate()
        assert torch.equal(compiled(*(buffers[n] for n in names)), eager)

    return run


def bare_loop(spec, counter: Counter):
    """One dynamic compile of one function over every Case, torch.equal only."""
    op = spec.resolve()

    def program(signature, *inputs):
        names = signature.buffer_names
        args = bind(signature, dict(zip(names, inputs, strict=False)), inputs[len(names) :])
        return spec.program(op, **args)

    compiled = torch.compile(program, backend=counter.backend, fullgraph=True, dynamic=True)

    def run(case):
        signature, sizes = signature_of(case)
        buffers = case.allocate()
        inputs = [buffers[n] for n in signature.buffer_names]
        expected = program(signature, *[b.clone() for b in inputs], *sizes)
        assert torch.equal(compiled(signature, *inputs, *sizes), expected)

    return run


def time_to_finding(spec, check: str) -> float:
    start = time.perf_counter()
    try:
        run_property(spec, check, settings.get_profile("ci"))
    except ConformanceFailure:
        return time.perf_counter() - start
    return float("nan")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=100, help="Cases per mode")
    parser.add_argument(
        "--naive-examples", type=int, default=10, help="Cases for the naive baseline"
    )
    options = parser.parse_args()

    spec = next(s for s in rope.SPECS if s.name == "rotary_embedding_functional")
    spec.prepare()
    cases = draw_cases(spec.cases, options.examples)
    rows = []
    print(f"{len(cases)} Cases of {spec.name}", flush=True)

    rows.append(timed("fake check (suite)", cases, lambda c: check_fake(spec, c), warm_up=5))
    rows.append(timed("opcheck test_faketensor", cases, lambda c: opcheck_fake(spec, c), warm_up=5))
    # Inductor's first compile in a process costs seconds of its own set-up.
    torch.compile(torch.sin, fullgraph=True)(torch.ones(2))

    with tempfile.TemporaryDirectory() as cache:
        use_cache_root(Path(cache))
        rows.append(
            timed(
                "inductor check, cold cache",
                cases,
                lambda c: check_inductor(spec, c),
                lambda: compiled_programs().compiles,
            )
        )
        torch._dynamo.reset()
        use_cache_root(Path(cache))  # forget compiled programs, keep the disk cache
        rows.append(
            timed(
                "inductor check, warm cache",
                cases,
                lambda c: check_inductor(spec, c),
                lambda: compiled_programs().compiles,
            )
        )
        use_cache_root(Path(cache) / "dynamic")
        rows.append(
            timed(
                "inductor check, dynamic per Signature",
                cases,
                lambda c: check_inductor(spec, c, dynamic=True),
                lambda: compiled_programs().compiles,
            )
        )
        use_cache_root(Path(cache) / "batched")
        batched = [
            case
            for structure in draw_cases(rope_structures(), max(1, len(cases) // BATCH))
            for case in draw_cases(rope_cases_of(structure), BATCH)
        ]
        rows.append(
            timed(
                f"inductor check, dynamic, {BATCH} sizes per structure",
                batched,
                lambda c: check_inductor(spec, c, dynamic=True),
                lambda: compiled_programs().compiles,
            )
        )
    counter = Counter()
    with inductor_config.patch(force_disable_caches=True):
        rows.append(
            timed(
                "naive: reset + compile per example, caches off",
                cases[: options.naive_examples],
                naive(spec, counter),
                lambda: counter.compiles,
            )
        )
    bare = Counter()
    with (
        torch._dynamo.config.patch(recompile_limit=10_000, accumulated_recompile_limit=10_000),
        tempfile.TemporaryDirectory() as cold,  # as cold as the suite's first row
    ):
        os.environ["TORCHINDUCTOR_CACHE_DIR"] = cold
        rows.append(
            timed("bare loop, dynamic=True", cases, bare_loop(spec, bare), lambda: bare.compiles)
        )
        del os.environ["TORCHINDUCTOR_CACHE_DIR"]

    zoo_rows = []
    for zoo_spec, check in [
        ("rope_returns_inputs_gemma4_fake", "fake"),
        ("rope_returns_inputs_gemma4_fake", "inductor"),
        ("rope_returns_inputs_2d_fake", "fake"),
        ("rope_returns_inputs_mirrored_fake", "schema"),
        ("rope_undeclared_write", "schema"),
        ("rope_undeclared_write", "inductor"),
        ("rope_no_fake", "fake"),
        ("rope_overrun", "schema"),
    ]:
        found = next(s for s in zoo.SPECS if s.name == zoo_spec)
        zoo_rows.append((zoo_spec, check, time_to_finding(found, check)))
        print(f"  {zoo_spec} / {check}: {zoo_rows[-1][2]:.1f} s", flush=True)

    report = render(rows, zoo_rows)
    RESULTS.write_text(report)
    print(report)


def render(rows: list[dict], zoo_rows: list) -> str:
    by_mode = {row["mode"]: row for row in rows}
    naive_rate = by_mode["naive: reset + compile per example, caches off"]["per_s"]
    bare_rate = by_mode["bare loop, dynamic=True"]["per_s"]
    lines = [
        "# Amortization benchmark",
        "",
        f"torch {torch.__version__}, `python -m benchmarks.amortization`; one list of",
        "Cases of `rotary_embedding_functional` for every row (the naive baseline",
        "runs the first few) but the batched one, whose Cases share a structure",
        f"{BATCH} at a time.",
        "",
        "| mode | examples | examples/s | vs naive | vs bare loop | compiles per 1,000 |",
        "| --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    for row in rows:
        compiles = row["compiles_per_1000"]
        lines.append(
            f"| {row['mode']} | {row['examples']} | {row['per_s']:.2f} | "
            f"{row['per_s'] / naive_rate:.1f}x | {row['per_s'] / bare_rate:.2f}x | "
            f"{'-' if compiles is None else f'{compiles:.0f}'} |"
        )
    fake = by_mode["fake check (suite)"]["per_s"] / by_mode["opcheck test_faketensor"]["per_s"]
    lines += ["", "## Targets", "", "| target | measured | met |", "| --- | --- | --- |"]
    for mode in ("inductor check, cold cache", "inductor check, warm cache"):
        ratio = by_mode[mode]["per_s"] / naive_rate
        half = by_mode[mode]["per_s"] / bare_rate
        lines.append(
            f"| {mode}: >= 100x naive | {ratio:.1f}x | {'yes' if ratio >= 100 else 'no'} |"
        )
        lines.append(
            f"| {mode}: >= 0.5x bare loop | {half:.2f}x | {'yes' if half >= 0.5 else 'no'} |"
        )
    lines.append(
        f"| fake check no slower than opcheck | {fake:.2f}x | {'yes' if fake >= 1 else 'no'} |"
    )
    lines += ["", "## Time to a Finding (ci profile)", "", "| zoo spec | check | seconds |"]
    lines += ["| --- | --- | ---: |"]
    lines += [f"| {name} | {check} | {seconds:.1f} |" for name, check, seconds in zoo_rows]
    return "\n".join(lines) + "\n"


def _met(condition: bool) -> str:
    return "yes" if condition else "no"


if __name__ == "__main__":
    main()
