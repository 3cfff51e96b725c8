"""Records every check's verdict: as JUnit properties and as a JSON report.

``pytest --report-json PATH`` writes one record per test: spec, check,
Mode, outcome, duration and the Findings (blocking ones from the failing Case,
non-blocking ones once per verdict with a count). The same Findings go into
the test's ``user_properties``, so ``--junitxml`` carries them too. Under
pytest-xdist the controller receives every worker's reports and writes the
one file. Non-blocking Findings of a passing check also reach pytest's
warnings summary, one line per verdict, so the terminal shows them.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import torch

from oracles.checks import CHECKS
from oracles.findings import Finding
from reports.crashes import CrashReport


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--report-json",
        metavar="PATH",
        default=None,
        help="write every check's verdict and Findings to this JSON file",
    )


def pytest_configure(config: pytest.Config) -> None:
    if hasattr(config, "workerinput"):
        return
    path = config.getoption("--report-json")
    if path is not None:
        config.pluginmanager.register(JsonReport(Path(path)), "conformance-json-report")
    if config.pluginmanager.hasplugin("xdist"):
        config.pluginmanager.register(CrashReport(config), "conformance-crash-report")


@pytest.fixture
def record_finding(request: pytest.FixtureRequest) -> Iterator[Callable[[Finding, str], None]]:
    """Call with (finding, case description) to attach a Finding to this test."""
    counts: dict[str, dict] = {}

    def record(finding: Finding, case: str) -> None:
        if not finding.blocking and finding.verdict in counts:
            counts[finding.verdict]["count"] += 1
            return
        entry = {
            "verdict": finding.verdict,
            "blocking": finding.blocking,
            "message": finding.message,
            "case": case,
            "count": 1,
        }
        if not finding.blocking:
            counts[finding.verdict] = entry
        request.node.user_properties.append(("finding", entry))

    yield record
    # A passing check says nothing on the terminal: its non-blocking
    # Findings reach the warnings summary, one line per verdict.
    for verdict, entry in counts.items():
        warnings.warn(
            NonBlockingFinding(
                f"{entry['count']} non-blocking [{verdict}] Finding(s), the first on "
                f"{entry['case']}: {entry['message']}"
            ),
            stacklevel=1,
        )


class NonBlockingFinding(UserWarning):
    """Findings that were reported without failing the check."""


class JsonReport:
    def __init__(self, path: Path):
        self.path = path
        self.results: list[dict] = []

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        crashed = report.when == "???"  # pytest-xdist's report of a worker that died
        if (
            report.when != "call"
            and not (report.when == "setup" and report.skipped)
            and not crashed
        ):
            return
        name, _, spec = report.nodeid.rpartition("::")[2].partition("[")
        known = dict(p for p in report.user_properties if p[0] != "finding")
        self.results.append(
            {
                "test": report.nodeid,
                "spec": known.get("spec", spec.rstrip("]")),
                "check": known.get("check", name.removeprefix("test_")),
                "mode": known.get("mode"),
                "outcome": report.outcome,
                "duration_s": round(report.duration, 3),
                "findings": [v for k, v in report.user_properties if k == "finding"],
            }
        )

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        checks = {
            check.name: {
                "compares": check.compares,
                "modes": [mode.name for mode in check.modes],
                "verdicts": list(check.verdicts),
            }
            for check in CHECKS.values()
        }
        report = {"torch": torch.__version__, "checks": checks, "results": self.results}
        self.path.write_text(json.dumps(report, indent=2) + "\n")
