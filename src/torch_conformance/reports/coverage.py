"""What a run of the gate covered, printed at its end: per spec and check,
the Cases judged, the programs compiled (one per Signature) and the Modes,
and how to go further."""

from __future__ import annotations

from collections import defaultdict

import pytest

# What a run leaves for longer runs, by the profile it ran in: each
# profile's line names only what goes further than it.
FURTHER = {
    "dev": "--hypothesis-profile=ci (the CI gate: 100 Cases a check, derandomized), "
    "--hypothesis-profile=nightly (1,000, every Mode), --modes=all (every compiled Mode now)",
    "ci": "--hypothesis-profile=nightly (1,000 Cases a check, every Mode), --modes=all "
    "(every compiled Mode now)",
}


def further() -> str | None:
    """The line that says how to go further than this run's profile, if anything does."""
    from hypothesis import settings

    more = FURTHER.get(settings.get_current_profile_name())
    return None if more is None else f"Further: {more}"


class Coverage:
    """Collects every conformance test's tally; prints them at the end."""

    def __init__(self) -> None:
        # spec -> check -> [cases, signatures, compiles, Modes, outcomes]
        self.rows: dict[str, dict[str, list]] = defaultdict(dict)
        # spec -> Cases at the edge of its recording (refused, not judged)
        self.edges: dict[str, int] = defaultdict(int)
        # The tests whose verdicts were kept from earlier runs, and when each was judged.
        self.kept: list[str] = []

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.when != "call" and not (report.when == "setup" and report.skipped):
            return
        known: dict = dict(p for p in report.user_properties if p[0] in TALLIED)
        if "spec" not in known:
            return
        row = self.rows[str(known["spec"])].setdefault(
            str(known["check"]), [0, 0, 0, set(), set(), False, False]
        )
        row[0] += known.get("cases") or 0
        row[1] += known.get("signatures") or 0
        # A kept verdict compiled nothing in this run.
        row[2] += 0 if known.get("kept") else known.get("compiles") or 0
        if not report.skipped:
            row[3].add(known["mode"])
        row[4].add(report.outcome)
        row[5] = row[5] or "holds" in known
        if known.get("kept"):
            self.kept.append(str(known["kept"]))
            row[6] = True
        self.edges[str(known["spec"])] += known.get("recording_edges") or 0

    def pytest_terminal_summary(self, terminalreporter) -> None:  # noqa: ANN001 - pytest's type
        if not self.rows:
            return
        write = terminalreporter.write_line
        terminalreporter.section("conformance coverage")
        checks = sorted({check for row in self.rows.values() for check in row})
        write(
            "Cases judged / programs compiled, per spec and check "
            "(- : skipped; holds: holds by construction, not run; *: kept from an earlier run)"
        )
        width = max(len(spec) for spec in self.rows)
        write(f"{'spec':<{width}}  " + "  ".join(f"{c:>14}" for c in checks))
        for spec in sorted(self.rows):
            cells = []
            for check in checks:
                row = self.rows[spec].get(check)
                if row is not None and row[5]:
                    cells.append(f"{'holds':>14}")
                elif row is None or not row[3]:
                    cells.append(f"{'-':>14}")
                else:
                    kept = " *" if row[6] else ""
                    cells.append(f"{f'{row[0]} / {row[1]}{kept}':>14}")
            write(f"{spec:<{width}}  " + "  ".join(cells))
        modes = sorted({m for row in self.rows.values() for r in row.values() for m in r[3]})
        compiles = sum(r[2] for row in self.rows.values() for r in row.values())
        write(f"Modes: {', '.join(modes)}; {compiles} compiles in all")
        edges = {spec: n for spec, n in sorted(self.edges.items()) if n}
        if edges:
            write(
                f"{sum(edges.values())} Case(s) at the edge of a recording (the op refused "
                "a Case no recorded call shows; not judged, no op blamed): "
                + ", ".join(f"{spec} {n}" for spec, n in edges.items())
            )
        if self.kept:
            write(
                f"{len(self.kept)} verdict(s) kept from earlier runs (judged from "
                f"{min(self.kept)} on): nothing they depend on changed since; --rejudge "
                "judges them again"
            )
        line = further()
        if line is not None:
            write(line)


TALLIED = (
    "spec", "check", "mode", "cases", "signatures", "compiles", "recording_edges", "holds",
    "kept",
)  # fmt: skip


def register(config: pytest.Config) -> None:
    """Print the coverage summary in the process that reports (not a worker)."""
    if not hasattr(config, "workerinput"):
        config.pluginmanager.register(Coverage(), "conformance-coverage")
