"""How fast the checks run, side by side on the same Cases, and what compiles cost.

Run from the checkout:  python -m benchmarks.amortization [--examples N]

Measures, on Cases of ``rotary_embedding_functional`` drawn once:

- the suite's fake check against ``torch.library.opcheck`` with only
  ``test_faketensor``, on the same inputs;
- the suite's Inductor check with a cold cache and again with a warm one:
  each Case compiled alone (statically), and over batches of Cases of one
  RopeModel sharing a compiled program (as the gate runs it), at the gate's
  batch size and a larger one;
- a naive baseline that resets Dynamo and compiles every example;
- for each Inductor row, a bare Hypothesis-style loop over the same Cases:
  one ``torch.compile(dynamic=True)`` of the same program, called per Case
  and compared with ``torch.equal`` (the closest thing to the limit);
- for each zoo case, how long the ``ci`` profile takes to produce its
  Finding (for a failing Inductor check: to its shrunk, reported Case);
- the ``ci`` profile's compiled check of user-style specs (Python custom ops
  with list, None and dtype arguments, batches derived from their ``cases``)
  per Case, against the built-in rope specs';
- the ``ci`` profile's compiled check in every compiled Mode, cold, per Case,
  on the pure-PyTorch rope (where Inductor generates the kernels, so the
  Modes differ) and on the functional C++ op.

It prints a table of ratios and writes it to its section of ``benchmarks/RESULTS.md``.
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
from hypothesis import settings

from benchmarks import results
from torch_conformance.families.rope import specs as rope
from torch_conformance.oracles.checks.compiled import check_compiled
from torch_conformance.oracles.checks.fake import check_fake
from torch_conformance.oracles.core.findings import CheckFailure
from torch_conformance.oracles.core.signature import batch_signature, bind, signature_of
from torch_conformance.oracles.modes.cache import compiled_programs, use_cache_root
from torch_conformance.oracles.modes.compiled import COMPILED, INDUCTOR
from torch_conformance.oracles.modes.programs import of_buffers
from torch_conformance.oracles.runner.loading import load_specs
from torch_conformance.oracles.runner.property import BATCH_SIZE, run_property
from torch_conformance.oracles.strategies.sampling import sample
from torch_conformance.suites import zoo

USER_SPECS = Path(__file__).parent.parent / "tests" / "user_specs" / "argument_specs.py"
# Cases per compiled program in the batched rows: the gate's, and a larger one.
BATCH_SIZES = (BATCH_SIZE, 100)
NAIVE = "naive: reset + compile per example, caches off"
# A Signature compiles once, plus a recompile per pattern of sizes equal to
# 1 (Dynamo specializes them): a bound that does not grow with examples.
MAX_COMPILES_PER_SIGNATURE = 3


def timed(
    label: str,
    units: list,
    run: Callable,
    compiles: Callable[[], int] | None = None,
    warm_up: int = 0,
    baseline: str | None = None,
    signatures: int | None = None,
) -> dict:
    """Time ``run`` over ``units`` (Cases, or batches of Cases counted as theirs)."""
    for unit in units[:warm_up]:  # first-call costs are not the mode's
        run(unit)
    start = time.perf_counter()
    before = compiles() if compiles else 0
    for unit in units:
        run(unit)
    seconds = time.perf_counter() - start
    made = (compiles() - before) if compiles else None
    examples = sum(len(u) if isinstance(u, list) else 1 for u in units)
    row = {
        "mode": label,
        "examples": examples,
        "seconds": seconds,
        "per_s": examples / seconds,
        "compiles_per_1000": None if made is None else 1000 * made / examples,
        "baseline": baseline,
        "signatures": signatures,
    }
    print(f"  {label}: {row['per_s']:.2f} examples/s", flush=True)
    return row


def check_batch(spec, batch: list) -> None:
    shared = batch_signature(batch)
    for case in batch:
        check_compiled(spec, case, shared)


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
        names, program = of_buffers(spec, case)
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


def bare(label: str, spec, cases: list) -> dict:
    """The bare loop over ``cases``, from a cold cache as the suite's first rows."""
    counter = Counter()
    with (
        torch._dynamo.config.patch(recompile_limit=10_000, accumulated_recompile_limit=10_000),
        tempfile.TemporaryDirectory() as cold,
    ):
        os.environ["TORCHINDUCTOR_CACHE_DIR"] = cold
        try:
            return timed(label, cases, bare_loop(spec, counter), lambda: counter.compiles)
        finally:
            del os.environ["TORCHINDUCTOR_CACHE_DIR"]


def suite_inductor(
    label: str, spec, units: list, cache: Path, run: Callable, baseline: str, signatures: int
):
    """The suite's Inductor check over ``units``, caches under ``cache``."""
    use_cache_root(cache)
    return timed(
        label,
        units,
        run,
        lambda: compiled_programs().compiles,
        baseline=baseline,
        signatures=signatures,
    )


def time_to_finding(spec, check: str) -> float:
    start = time.perf_counter()
    try:
        run_property(spec, check, settings.get_profile("ci"))
    except CheckFailure:
        return time.perf_counter() - start
    return float("nan")


def compiled_seconds_per_case(spec, mode: str = INDUCTOR.name) -> float:
    """The ci profile's compiled check of ``spec`` in ``mode``, cold, per Case it runs."""
    cases = settings.get_profile("ci").max_examples + len(spec.examples)
    with tempfile.TemporaryDirectory() as folder:
        use_cache_root(Path(folder))
        torch._dynamo.reset()
        start = time.perf_counter()
        run_property(spec, "compiled", settings.get_profile("ci"), mode=mode)
        return (time.perf_counter() - start) / cases


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--examples", type=int, default=1000, help="Cases per batched and fake mode"
    )
    parser.add_argument(
        "--alone-examples",
        type=int,
        default=100,
        help="Cases for the modes that compile each Case alone",
    )
    parser.add_argument(
        "--naive-examples", type=int, default=10, help="Cases for the naive baseline"
    )
    options = parser.parse_args()

    spec = next(s for s in rope.SPECS if s.name == "rotary_embedding_functional")
    spec.prepare()
    cases = sample(spec.cases, options.examples)
    alone = cases[: options.alone_examples]
    batches = {
        size: sample(spec.batches(size), max(1, options.examples // size)) for size in BATCH_SIZES
    }
    rows = []
    print(f"{len(cases)} Cases of {spec.name}", flush=True)

    rows.append(timed("fake check (suite)", cases, lambda c: check_fake(spec, c), warm_up=5))
    rows.append(timed("opcheck test_faketensor", cases, lambda c: opcheck_fake(spec, c), warm_up=5))
    # Inductor's first compile in a process costs seconds of its own set-up.
    torch.compile(torch.sin, fullgraph=True)(torch.ones(2))

    def alone_check(case):
        check_compiled(spec, case)

    def batch_check(batch):
        check_batch(spec, batch)

    with tempfile.TemporaryDirectory() as folder:
        cache = Path(folder)
        for temperature in ("cold", "warm"):
            torch._dynamo.reset()  # forget compiled code, keep the disk cache
            rows.append(
                suite_inductor(
                    f"inductor check, each Case alone, {temperature} cache",
                    spec,
                    alone,
                    cache / "alone",
                    alone_check,
                    "bare loop, Cases drawn alone",
                    len({signature_of(case) for case in alone}),
                )
            )
        for size, drawn in batches.items():
            for temperature in ("cold", "warm"):
                torch._dynamo.reset()
                rows.append(
                    suite_inductor(
                        f"inductor check, batches of {size}, {temperature} cache",
                        spec,
                        drawn,
                        cache / f"batches-{size}",
                        batch_check,
                        f"bare loop, batches of {size}",
                        len({batch_signature(batch) for batch in drawn}),
                    )
                )
    counter = Counter()
    with inductor_config.patch(force_disable_caches=True):
        rows.append(
            timed(
                NAIVE,
                cases[: options.naive_examples],
                naive(spec, counter),
                lambda: counter.compiles,
            )
        )
    torch._dynamo.reset()
    rows.append(bare("bare loop, Cases drawn alone", spec, alone))
    for size, drawn in batches.items():
        torch._dynamo.reset()
        rows.append(bare(f"bare loop, batches of {size}", spec, [c for b in drawn for c in b]))

    zoo_rows = []
    for zoo_spec, check in [
        ("rope_returns_inputs_gemma4_fake", "fake"),
        ("rope_returns_inputs_gemma4_fake", "compiled"),
        ("rope_returns_inputs_2d_fake", "fake"),
        ("rope_returns_inputs_2d_fake", "compiled"),
        ("rope_returns_inputs_mirrored_fake", "schema"),
        ("rope_undeclared_write", "schema"),
        ("rope_undeclared_write", "compiled"),
        ("rope_no_fake", "fake"),
        ("rope_overrun", "schema"),
    ]:
        found = next(s for s in zoo.SPECS if s.name == zoo_spec)
        zoo_rows.append((zoo_spec, check, time_to_finding(found, check)))
        print(f"  {zoo_spec} / {check}: {zoo_rows[-1][2]:.1f} s", flush=True)

    user_rows = []
    for label, user_spec in [
        ("built-in: rotary_embedding_functional", spec),
        *((f"user: {s.name}", s) for s in load_specs(str(USER_SPECS))),
    ]:
        user_rows.append((label, compiled_seconds_per_case(user_spec)))
        print(f"  {label}: {1000 * user_rows[-1][1]:.1f} ms per Case", flush=True)

    mode_rows = []
    torch_form = next(s for s in rope.SPECS if s.name == "rotary_embedding_torch")
    for mode in COMPILED.values():
        for measured in (torch_form, spec):
            why = mode.unavailable(measured)
            seconds = float("nan") if why else compiled_seconds_per_case(measured, mode.name)
            mode_rows.append((mode.name, measured.name, seconds, why))
            print(f"  {mode.name} / {measured.name}: {1000 * seconds:.1f} ms per Case", flush=True)

    report = render(rows, zoo_rows, user_rows, mode_rows)
    results.update("amortization", report)
    print(report)


def render(rows: list[dict], zoo_rows: list, user_rows: list, mode_rows: list) -> str:
    by_mode = {row["mode"]: row for row in rows}
    naive_rate = by_mode[NAIVE]["per_s"]
    lines = [
        "# Amortization benchmark",
        "",
        f"torch {torch.__version__}, `python -m benchmarks.amortization`; Cases of",
        "`rotary_embedding_functional`. The fake rows and the Cases drawn alone share",
        "one list (the naive baseline runs its first few); each batched row draws",
        "batches of one RopeModel, and its bare loop runs the same Cases. A",
        "Signature is what one compile serves: a Case's Signature and sizes when",
        "it compiles alone, a batch's BatchSignature in a batch.",
        "",
        "| mode | examples | examples/s | vs naive | vs its bare loop | compiles per 1,000 "
        "| compiles per Signature |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for row in rows:
        compiles = row["compiles_per_1000"]
        baseline = row["baseline"]
        versus = f"{row['per_s'] / by_mode[baseline]['per_s']:.2f}x" if baseline else "-"
        per_signature = "-"
        if row["signatures"]:
            made = compiles * row["examples"] / 1000
            per_signature = f"{made / row['signatures']:.2f} ({row['signatures']} Signatures)"
        lines.append(
            f"| {row['mode']} | {row['examples']} | {row['per_s']:.2f} | "
            f"{row['per_s'] / naive_rate:.1f}x | {versus} | "
            f"{'-' if compiles is None else f'{compiles:.0f}'} | {per_signature} |"
        )
    fake = by_mode["fake check (suite)"]["per_s"] / by_mode["opcheck test_faketensor"]["per_s"]
    lines += ["", "## Targets", "", "| target | measured | met |", "| --- | --- | --- |"]
    for row in rows:
        if row["baseline"] is None:
            continue
        ratio = row["per_s"] / naive_rate
        half = row["per_s"] / by_mode[row["baseline"]]["per_s"]
        lines.append(f"| {row['mode']}: >= 100x naive | {ratio:.1f}x | {_met(ratio >= 100)} |")
        lines.append(
            f"| {row['mode']}: >= 0.5x its bare loop | {half:.2f}x | {_met(half >= 0.5)} |"
        )
    per_signature = {
        row["mode"]: row["compiles_per_1000"] * row["examples"] / 1000 / row["signatures"]
        for row in rows
        if row["signatures"]
    }
    worst = max(per_signature.values())
    measured = f"{min(per_signature.values()):.2f} to {worst:.2f} per Signature"
    lines.append(
        f"| compiles grow with Signatures, not examples: at most {MAX_COMPILES_PER_SIGNATURE} "
        f"per Signature in every row | {measured} | {_met(worst <= MAX_COMPILES_PER_SIGNATURE)} |"
    )
    lines.append(f"| fake check no slower than opcheck | {fake:.2f}x | {_met(fake >= 1)} |")
    lines += ["", "## Time to a Finding (ci profile)", "", "| zoo spec | check | seconds |"]
    lines += ["| --- | --- | ---: |"]
    lines += [f"| {name} | {check} | {seconds:.1f} |" for name, check, seconds in zoo_rows]
    built_in = user_rows[0][1]
    lines += ["", "## A user's own ops: the ci profile's compiled check (inductor), cold", ""]
    lines += ["| spec | ms per Case | vs the built-in rope spec | target: <= 2x |"]
    lines += ["| --- | ---: | ---: | --- |"]
    for label, seconds in user_rows:
        ratio = seconds / built_in
        lines.append(f"| {label} | {1000 * seconds:.1f} | {ratio:.2f}x | {_met(ratio <= 2)} |")
    lines += ["", "## Each compiled Mode: the ci profile's compiled check, cold", ""]
    lines += [
        "Each row compiles into a fresh disk cache, one after another in one process:",
        "kernels an earlier row built from the same source are reused from memory, so",
        "the first row (inductor) also pays for kernels the later Modes share with it.",
        "",
    ]
    lines += ["| Mode | spec | ms per Case | vs inductor |", "| --- | --- | ---: | ---: |"]
    inductor = {name: seconds for mode, name, seconds, _ in mode_rows if mode == INDUCTOR.name}
    for mode, name, seconds, why in mode_rows:
        if why:
            lines.append(f"| {mode} | {name} | skipped: {why} | - |")
            continue
        ratio = seconds / inductor[name]
        lines.append(f"| {mode} | {name} | {1000 * seconds:.1f} | {ratio:.2f}x |")
    return "\n".join(lines) + "\n"


def _met(condition: bool) -> str:
    return "yes" if condition else "no"


if __name__ == "__main__":
    main()
