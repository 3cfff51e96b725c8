"""Which check and Mode of the ``ci`` gate catch each zoo bug.

Run from the checkout:  python -m benchmarks.zoo_gate [--profile ci]
                        [--workers 2] [--out DIR] [--no-results]

It runs ``pytest --specs=torch_conformance.suites.zoo`` in the profile (cold, into a fresh
Inductor cache), reads its JSON report and writes, per zoo spec, the tests
that failed with a blocking Finding and the Verdicts they gave. A zoo spec
that no test of the profile fails is named: only a deeper profile (or a
Mode the profile leaves out) can catch it. The table is printed and goes to
the catalog's reference page, ``docs/reference/catalog.md`` (between its
``zoo-<profile>`` markers).
"""

from __future__ import annotations

import argparse
import tempfile
from collections import defaultdict
from pathlib import Path

import torch

from benchmarks.gate import run_gate
from benchmarks.results import update

CHECKOUT = Path(__file__).resolve().parent.parent
CATALOG = CHECKOUT / "docs" / "reference" / "catalog.md"


def run(profile: str, workers: int, out: Path) -> tuple[list[dict], float]:
    """The zoo's test records in ``profile``, and the run's wall time."""
    with tempfile.TemporaryDirectory() as cache:
        report = out / f"zoo-{profile}.json"
        arguments = ["--specs=torch_conformance.suites.zoo"]
        return run_gate(arguments, report, Path(cache), out, workers, profile)


def caught(results: list[dict]) -> dict[str, list[str]]:
    """Per zoo spec, each failing test as ``check × Mode [verdicts]``."""
    by_spec: dict[str, list[str]] = defaultdict(list)
    for result in results:
        spec = result["spec"]
        if result["check"] in ("known_fault", "known_fault_deployed", "registry"):
            continue
        by_spec.setdefault(spec, [])
        blocking = sorted({f["verdict"] for f in result["findings"] if f["blocking"]})
        if result["outcome"] == "failed":
            where = result["check"] + (f" × {result['mode']}" if result["mode"] else "")
            by_spec[spec].append(f"{where} [{', '.join(blocking) or 'crash of its worker'}]")
    return by_spec


def table(by_spec: dict[str, list[str]], profile: str, wall: float) -> str:
    missed = sorted(spec for spec, found in by_spec.items() if not found)
    lines = [
        f"torch {torch.__version__}, `python -m benchmarks.zoo_gate --profile {profile}`: "
        f"`pytest --specs=torch_conformance.suites.zoo --hypothesis-profile={profile}`, cold, "
        f"{wall:.0f} s. Each zoo spec, and the tests of the {profile} profile that fail on "
        "it (check × Mode, with the blocking Verdicts).",
        "",
        "| zoo spec | caught by |",
        "| --- | --- |",
    ]
    for spec in sorted(by_spec):
        lines.append(f"| `{spec}` | {'; '.join(by_spec[spec]) or '**not caught**'} |")
    lines.append("")
    lines.append(
        f"Not caught in {profile}: {', '.join(f'`{s}`' for s in missed)}."
        if missed
        else f"Every zoo spec is caught in {profile}."
    )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--profile", default="ci")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--out", type=Path, default=CHECKOUT / "reports" / "out" / "zoo")
    parser.add_argument(
        "--no-results", action="store_true", help="leave docs/reference/catalog.md as it is"
    )
    options = parser.parse_args()
    options.out.mkdir(parents=True, exist_ok=True)
    results, wall = run(options.profile, options.workers, options.out)
    text = table(caught(results), options.profile, wall)
    print(text)
    if not options.no_results:
        update(f"zoo-{options.profile}", text, CATALOG)


if __name__ == "__main__":
    main()
