"""Records every check's verdict: as JUnit properties and as a JSON report.

``pytest --report-json PATH`` writes one record per test: spec, check,
Mode, outcome (with a skip's reason), duration, the number of Cases judged
and the Findings (blocking ones from the failing Case, non-blocking ones once
per verdict with a count); a failure adds its report and, for each distinct
failure, its shrunk Case, rerun command and repro script; a run on
another device than the CPU names it (``device``). ``--report-md
PATH`` writes the run's table (``reports.matrix``). The same Findings go into
the test's ``user_properties``, so ``--junitxml`` carries them too. Under
pytest-xdist the controller receives every worker's reports and writes the
one file. Non-blocking Findings of a passing check also reach pytest's
warnings summary, one line per verdict, so the terminal shows them.
"""

from __future__ import annotations

import datetime
import json
import os
import platform
import time
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from hypothesis import settings

from torch_conformance.reports import coverage
from torch_conformance.reports.crashes import CrashReport, EveryTestReports

if TYPE_CHECKING:
    from torch_conformance.oracles.core.findings import Finding


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--report-json",
        metavar="PATH",
        type=Path,
        default=None,
        help="write every check's verdict and Findings to this JSON file",
    )
    parser.addoption(
        "--report-md",
        metavar="PATH",
        type=Path,
        default=None,
        help="write this run's table of verdicts as Markdown (for a CI job summary)",
    )


def pytest_configure(config: pytest.Config) -> None:
    from torch_conformance.plugin import active

    if not active(config):
        return
    coverage.register(config)
    if hasattr(config, "workerinput"):
        return
    json_path, md_path = config.getoption("--report-json"), config.getoption("--report-md")
    if json_path is not None or md_path is not None:
        report = RunReport(json_path, md_path, config.getoption("--device", "cpu"))
        config.pluginmanager.register(report, "conformance-run-report")
    if config.pluginmanager.hasplugin("xdist"):
        config.pluginmanager.register(CrashReport(config), "conformance-crash-report")
        config.pluginmanager.register(EveryTestReports(), "conformance-every-test-reports")


@pytest.fixture
def record_finding(request: pytest.FixtureRequest) -> Iterator[Callable[[Finding, str], None]]:
    """Call with (finding, case description) to attach a Finding to this test."""
    counts: dict[tuple, dict] = {}

    def record(finding: Finding, case: str) -> None:
        key = (finding.verdict, finding.fault)
        if not finding.blocking and key in counts:
            counts[key]["count"] += 1
            return
        entry = {
            "verdict": finding.verdict,
            "blocking": finding.blocking,
            "message": finding.message,
            "case": case,
            "count": 1,
        }
        if finding.fault is not None:
            entry["fault"] = finding.fault
        if not finding.blocking:
            counts[key] = entry
        request.node.user_properties.append(("finding", entry))

    yield record
    # A passing check says nothing on the terminal: its non-blocking
    # Findings reach the warnings summary, one line per verdict.
    for (verdict, _), entry in counts.items():
        warnings.warn(
            NonBlockingFinding(
                f"{entry['count']} non-blocking [{verdict}] Finding(s), the first on "
                f"{entry['case']}: {entry['message']}"
            ),
            stacklevel=1,
        )


class NonBlockingFinding(UserWarning):
    """Findings that were reported without failing the check."""


class RunReport:
    """Collects every check's record; at the end writes the JSON report and
    its Markdown table (each where asked)."""

    def __init__(self, json_path: Path | None, md_path: Path | None, device: str = "cpu"):
        self.json_path = json_path
        self.md_path = md_path
        # Named where it is not the CPU, so a CPU run's report reads as before.
        self.device = {} if device == "cpu" else {"device": device}
        self.results: list[dict] = []
        self.started = time.time()

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        crashed = report.when == "???"  # pytest-xdist's report of a worker that died
        if (
            report.when != "call"
            and not (report.when == "setup" and report.skipped)
            and not crashed
        ):
            return
        self.results.append(record(report))

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        report = run_metadata(time.time() - self.started) | self.device | {"results": self.results}
        if self.json_path is not None:
            self.json_path.parent.mkdir(parents=True, exist_ok=True)
            self.json_path.write_text(json.dumps(report, indent=2) + "\n")
        if self.md_path is not None:
            from torch_conformance.reports.markdown import markdown
            from torch_conformance.reports.matrix import Matrix

            self.md_path.parent.mkdir(parents=True, exist_ok=True)
            self.md_path.write_text(markdown(Matrix.of([report])))


def record(report: pytest.TestReport) -> dict:
    """One test's record: spec, check, Mode, outcome, Cases judged, Findings
    and, for a failure, its on-screen report and how to reproduce it."""
    name, _, spec = report.nodeid.rpartition("::")[2].partition("[")
    known = dict(p for p in report.user_properties if p[0] not in ("finding", "failure"))
    entry = {
        "test": report.nodeid,
        "spec": known.get("spec", spec.rstrip("]")),
        "check": known.get("check", name.removeprefix("test_")),
        "mode": known.get("mode"),
        "outcome": report.outcome,
        "duration_s": round(report.duration, 3),
        "cases": known.get("cases"),
        "compiles": known.get("compiles"),
        "signatures": known.get("signatures"),
        "per_case": known.get("per_case"),
        "not_judgeable": known.get("not_judgeable", 0),
        "recording_edges": known.get("recording_edges", 0),
        "findings": [v for k, v in report.user_properties if k == "finding"],
    }
    # Judged now, or kept from an earlier run (and when that run judged it).
    entry["kept"] = known.get("kept")
    for key in ("reproduces", "about"):  # a known fault's record
        if key in known:
            entry[key] = known[key]
    if report.skipped:
        entry["reason"] = skip_reason(report)
    if report.failed:
        entry["report"] = failure_text(report)
        entry["failures"] = [v for k, v in report.user_properties if k == "failure"]
    return entry


def failure_text(report: pytest.TestReport) -> str:
    """The failure as the terminal shows it, without xdist's worker line."""
    lines = report.longreprtext.splitlines()
    if lines and lines[0].startswith("[gw"):
        lines = lines[1:]
    return "\n".join(lines)


def skip_reason(report: pytest.TestReport) -> str:
    if isinstance(report.longrepr, tuple):  # (path, line, "Skipped: reason")
        return str(report.longrepr[2]).removeprefix("Skipped: ")
    return report.longreprtext


def run_metadata(wall_s: float) -> dict:
    """What a run's report says of the run: the releases it ran on, its
    Hypothesis profile, its checks, what Triton's interpreter gets wrong here
    (where it runs) and its wall time."""
    import torch

    from torch_conformance.oracles.checks import CHECKS
    from torch_conformance.oracles.modes.interpreter import active, faults
    from torch_conformance.oracles.runner.property import RUNNER_VERDICTS

    try:
        import triton

        triton_version = triton.__version__
    except ImportError:
        triton_version = None
    checks = {
        check.name: {
            "compares": check.compares,
            "modes": [mode.name for mode in check.modes],
            "verdicts": [*check.verdicts, *RUNNER_VERDICTS],
        }
        for check in CHECKS.values()
    }
    return {
        "format": REPORT_FORMAT,
        "torch": torch.__version__,
        "triton": triton_version,
        "python": platform.python_version(),
        "machine": f"{platform.machine()}, {os.cpu_count()} cores",
        "profile": settings.get_current_profile_name(),
        "finished": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "wall_s": round(wall_s, 1),
        "checks": checks,
        "triton_interpreter": [str(f) for f in faults()] if triton_version and active() else None,
    }


# Bumped when a record's fields change meaning.
REPORT_FORMAT = 2
