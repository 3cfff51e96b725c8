"""Two runs of the same gate, compared record by record.

    torch-conformance diff BEFORE.json AFTER.json

Each run report (``pytest --report-json``) is read as one record per spec,
check and Mode: its outcome, the Cases it judged and the Verdicts of its
blocking Findings. The exit status is 1 where a record differs or is in one
run only, 0 when both runs judged alike: what a change that should not
change behaviour (a refactoring) must show. Non-blocking Findings (a known
fault, size-1 strides) depend on which Cases were drawn: where their
Verdicts differ, a note says so without failing.

``--per-case`` compares every Case both runs judged instead, Finding by
Finding (known-fault attributions included): two runs of the same code in
two test orders must agree on each (see ``reports.orders``).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable
from pathlib import Path

Key = tuple[str, str, str]
# What two runs must agree on; "notes" (non-blocking Verdicts) only inform.
JUDGED = ("outcome", "cases", "verdicts")


def records(report: dict) -> dict[Key, dict]:
    """Per (spec, check, Mode): what the run's record says of it."""
    found = {}
    for result in report["results"]:
        findings = result.get("findings", [])
        key = (result["spec"], result["check"], str(result.get("mode")))
        found[key] = {
            "outcome": result["outcome"],
            "cases": result.get("cases"),
            "verdicts": sorted({f["verdict"] for f in findings if f["blocking"]}),
            "notes": sorted({f["verdict"] for f in findings if not f["blocking"]}),
        }
    return found


def per_case(report: dict) -> dict[str, list[str]]:
    """Per test and Case judged: the Case's Findings."""
    found = {}
    for result in report["results"]:
        for case, findings in (result.get("per_case") or {}).items():
            found[f"{result['test']} {case}"] = findings
    return found


def case_differences(before: dict[str, list[str]], after: dict[str, list[str]]) -> list[str]:
    """One line per Case both runs judged whose Findings differ."""
    return [
        f"{case}: {before[case]} -> {after[case]}"
        for case in sorted(before.keys() & after.keys())
        if before[case] != after[case]
    ]


def differences(
    before: dict[Key, dict], after: dict[Key, dict], fields: tuple[str, ...] = JUDGED
) -> list[str]:
    """One line per record whose ``fields`` differ between the runs, or that
    is in one only."""
    lines = []
    for key in sorted(before.keys() | after.keys()):
        was, now = before.get(key), after.get(key)
        label = " / ".join(key)
        if was is None or now is None:
            lines.append(f"{label}: only in the {'second' if was is None else 'first'} run")
            continue
        changed = [
            f"{name} {was[name]} -> {now[name]}" for name in fields if was[name] != now[name]
        ]
        if changed:
            lines.append(f"{label}: " + "; ".join(changed))
    return lines


def _run_report(path: Path) -> dict:
    """A run's JSON report (``--report-json``), or why ``path`` holds none."""
    try:
        data = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError, RecursionError) as error:
        raise ValueError(f"{path}: cannot read a JSON report ({type(error).__name__})") from None
    if not isinstance(data, dict) or "results" not in data:
        raise ValueError(
            f"{path} is not one run's report (no \"results\"): diff compares two runs' "
            "--report-json files; compare two merged matrices with python -m "
            "torch_conformance.reports.merge ... --against OLD.json"
        )
    return data


def main(argv: Iterable[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="torch-conformance diff", description=__doc__)
    parser.add_argument("before", type=Path)
    parser.add_argument("after", type=Path)
    parser.add_argument("--per-case", action="store_true", help="compare Case by Case")
    options = parser.parse_args(None if argv is None else list(argv))
    try:
        first, second = (_run_report(path) for path in (options.before, options.after))
    except ValueError as error:
        parser.exit(2, f"torch-conformance diff: {error}\n")
    if options.per_case:
        cases, others = per_case(first), per_case(second)
        lines = case_differences(cases, others)
        for line in lines:
            print(line)
        judged = len(cases.keys() & others.keys())
        # A derandomized run judges the same Cases in any order: one judged by
        # one run only means the draws themselves depended on what ran before.
        alone = len(cases.keys() - others.keys()), len(others.keys() - cases.keys())
        print(
            f"{judged} Cases judged in both; "
            + (f"{len(lines)} differ" if lines else "alike")
            + (
                f"; {alone[0]} judged by the first run only, {alone[1]} by the second"
                if any(alone)
                else ""
            )
        )
        return 1 if lines or any(alone) or not judged else 0
    before, after = records(first), records(second)
    lines = differences(before, after)
    for line in lines:
        print(line)
    shared = before.keys() & after.keys()
    notes = differences({k: before[k] for k in shared}, {k: after[k] for k in shared}, ("notes",))
    for line in notes:
        print(f"note (non-blocking Findings): {line}")
    print(
        f"{len(before)} and {len(after)} records; "
        + (f"{len(lines)} differ" if lines else "every one judged alike")
    )
    return 1 if lines else 0


if __name__ == "__main__":
    sys.exit(main())
