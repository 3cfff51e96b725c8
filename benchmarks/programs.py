"""How fast the programs check finds compiler bugs: programs per second and
distinct bugs per hour, on this machine, in one run.

Run from the checkout:  python -m benchmarks.programs [--minutes 60]
                        [--modes inductor] [--specs FILE_OR_MODULE ...]
                        [--examples 25] [--out DIR] [--results]

It runs the programs check over every spec (the built-in catalog, or
``--specs``) in turn, ``--examples`` programs per spec and Mode a round,
with fresh random draws each round, until the time is up. Every failure is
shrunk and cut down to its fewest Steps, keyed by symptom, Mode, static or
dynamic shapes and the kinds of Step left (``oracles.checks.programs.bug_key``), and
written as a standalone repro under ``--out``; a known compiler fault that
explains a program is counted once per fault. The table of distinct bugs
(new, or the known fault or upstream issue they match) is printed and goes,
in full, to ``--out``/programs.md; with ``--results`` also to its section of
the tracked ``benchmarks/RESULTS.md``.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import time
from pathlib import Path

import torch
from hypothesis import settings

from torch_conformance.oracles.checks.programs import bug_key
from torch_conformance.oracles.core.findings import CheckFailure, Finding
from torch_conformance.oracles.core.specification import SpecError, Unavailable
from torch_conformance.oracles.runner.loading import load_specs
from torch_conformance.oracles.runner.property import run_property
from torch_conformance.oracles.runner.replay import ReproOptions
from torch_conformance.oracles.runner.tally import Tally
from torch_conformance.oracles.triage.faults import KNOWN_FAULTS
from torch_conformance.suites.catalog import builtin_specs

CHECKOUT = Path(__file__).resolve().parent.parent


@dataclasses.dataclass
class Bug:
    """One distinct bug: where it was first seen and how to reproduce it."""

    key: str
    spec: str
    minute: float
    known: str  # the known fault that explains it, or "new"
    repro: str
    program: str = ""


def _known(finding: Finding) -> tuple[str, str]:
    """What a known fault's Finding matches, and its standalone repro."""
    fault = next(f for f in KNOWN_FAULTS if f.name == finding.fault)
    upstream = f" ({', '.join(fault.upstream)})" if fault.upstream else ""
    return f"known: {finding.fault}{upstream}", fault.repro


def explore(
    specs: list,
    modes: list[str],
    minutes: float,
    examples: int,
    out: Path,
    spec_options: tuple[str, ...] = (),
) -> dict:
    """Run until ``minutes`` are up; the programs judged and the distinct bugs."""
    start = time.monotonic()
    deadline = start + 60 * minutes
    bugs: dict[str, Bug] = {}
    tally = Tally()
    rounds = 0
    # A round is clean when nothing in it was left unexplained: every
    # failure matched a known fault, and the suite itself never failed.
    clean = 0
    while time.monotonic() < deadline:
        rounds += 1
        unexplained = cut = False
        for spec in specs:
            for mode in modes:
                if time.monotonic() >= deadline:
                    cut = True
                    break

                def seen(finding: Finding, case: str, spec=spec) -> None:
                    if finding.fault is not None and finding.fault not in bugs:
                        minute = (time.monotonic() - start) / 60
                        bugs[finding.fault] = Bug(
                            finding.fault, spec.name, minute, *_known(finding)
                        )

                test = f"torch_conformance/test_conformance.py::test_programs[{spec.id}-{mode}]"
                rerun = " ".join([f"pytest '{test}' --modes={mode}", *spec_options])
                repro = ReproOptions(out / f"round{rounds}", rerun)
                try:
                    run_property(
                        spec,
                        "programs",
                        base=settings(max_examples=examples, database=None),
                        mode=mode,
                        on_finding=seen,
                        repro=repro,
                        tally=tally,
                    )
                except Unavailable:
                    continue
                except CheckFailure as failure:
                    unexplained = True
                    for one in failure.failures:
                        program = one.cases[one.index].program
                        key = bug_key(one.findings, _mode(mode), program)
                        if key not in bugs:
                            bugs[key] = Bug(
                                key,
                                spec.name,
                                (time.monotonic() - start) / 60,
                                "new",
                                str(one.script or one.script_problem),
                                program.source(),
                            )
                except Exception as error:  # the suite's own failure: counted, not fatal
                    unexplained = True
                    key = f"suite error/{mode}/{type(error).__name__}"
                    if key not in bugs:
                        minute = (time.monotonic() - start) / 60
                        bugs[key] = Bug(key, spec.name, minute, "suite error", str(error)[:300])
        if cut and not unexplained:  # a round the deadline cut off clean is no round
            rounds -= 1
        else:
            clean += not unexplained
    elapsed = time.monotonic() - start
    return {
        "programs": tally.cases,
        "seconds": elapsed,
        "rounds": rounds,
        "clean": clean,
        "bugs": list(bugs.values()),
    }


def _mode(name: str):
    from torch_conformance.oracles.modes.compiled import COMPILED

    return COMPILED[name]


def table(result: dict, modes: list[str], specs: int) -> str:
    hours = result["seconds"] / 3600
    bugs = result["bugs"]
    lines = [
        f"torch {torch.__version__}, {os.cpu_count()} cores, {specs} specs, Modes "
        f"{', '.join(modes)}, {result['seconds'] / 60:.0f} minutes: "
        f"{result['programs']} programs judged (shrinking included), "
        f"{result['programs'] / result['seconds']:.2f} programs/s; "
        f"{len(bugs)} distinct bugs, {len(bugs) / hours:.1f} per hour "
        f"({sum(b.known == 'new' for b in bugs)} not explained by a known fault); "
        f"{result['clean']} of {result['rounds']} rounds over every spec clean "
        f"(each failure explained by a known fault).",
        "",
        "| first seen (min) | spec | distinct bug | known? | repro |",
        "| --- | --- | --- | --- | --- |",
    ]
    for bug in sorted(bugs, key=lambda b: b.minute):
        lines.append(f"| {bug.minute:.1f} | {bug.spec} | `{bug.key}` | {bug.known} | {bug.repro} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=60)
    parser.add_argument("--modes", default="inductor")
    parser.add_argument("--specs", action="append", default=[])
    parser.add_argument("--examples", type=int, default=25)
    parser.add_argument("--out", type=Path, default=CHECKOUT / "reports" / "out" / "programs")
    parser.add_argument(
        "--results", action="store_true", help="write the table into benchmarks/RESULTS.md too"
    )
    options = parser.parse_args()
    try:
        specs = [s for t in options.specs for s in load_specs(t)] or builtin_specs()
    except SpecError as error:
        parser.error(str(error))
    modes = options.modes.split(",")
    spec_options = tuple(f"--specs={t}" for t in options.specs)
    result = explore(specs, modes, options.minutes, options.examples, options.out, spec_options)
    text = table(result, modes, len(specs))
    programs = "\n\n".join(
        f"### `{b.key}` ({b.spec})\n\n```python\n{b.program}```"
        for b in result["bugs"]
        if b.program
    )
    options.out.mkdir(parents=True, exist_ok=True)
    (options.out / "programs.md").write_text(f"{text}\n\n{programs}\n")
    print(text)
    if options.results:
        from benchmarks.results import update

        update("programs", "## Generated programs\n\n" + text)


if __name__ == "__main__":
    main()
