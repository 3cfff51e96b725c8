"""A check whose process dies (a kernel's fatal signal or abort) fails alone.

The gate runs in pytest-xdist workers; a worker killed by a kernel takes one
test with it, the run goes on and its reports are written. While each Case
runs, the worker keeps a Replay of it in a running file; when the worker
dies, the controller turns xdist's bare "worker crashed" into a Finding that
names the spec, the check and the Case, and a command that reruns exactly it.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest


def running_file(folder: Path, worker: str | None = None) -> Path:
    """Where this process (or ``worker``) keeps the Case it is running."""
    worker = worker or os.environ.get("PYTEST_XDIST_WORKER", "main")
    return Path(folder) / f".running-{worker}.cases"


class CrashReport:
    """Registered in the xdist controller: words for a worker's death."""

    def __init__(self, config: pytest.Config):
        self.folder = Path(config.getoption("--repro-dir"))
        self.specs = [f"--specs={t}" for t in config.getoption("--specs")]
        self.specs += [f"--specs-from={t}" for t in config.getoption("--specs-from")]
        # The Case died on this device: its rerun runs there too.
        device = config.getoption("--device", "cpu")
        if device != "cpu":
            self.specs.append(f"--device={device}")

    @pytest.hookimpl(optionalhook=True)
    def pytest_handlecrashitem(self, crashitem: str, report: pytest.TestReport, sched) -> None:
        # Here, not at start-up: the suite's code loads torch's compiler.
        from torch_conformance.oracles.runner.replay import Replay, shown

        worker = report.node.gateway.id
        running = running_file(self.folder, worker)
        case, rerun = "a Case it did not record", ""
        if running.exists():
            replay = Replay.load(running)
            cases = self.folder / f"{replay.spec}-{replay.check}-crash.cases"
            kept = shown(Path(shutil.copy(running, cases)))
            case = replay.cases[replay.index].describe()
            specs = "".join(f" {option}" for option in self.specs)
            rerun = f"\n  rerun this Case: pytest '{crashitem}'{specs} -n 0 --replay={shown(kept)}"
            running.unlink()
        message = (
            f"the process running this check died (worker {worker} crashed: a fatal "
            "signal or abort in the op or the compiled program) on " + case
        )
        report.longrepr = f"[crash] {message}{rerun}"
        path, _, name = crashitem.partition("::")
        report.location = (path, None, name)  # the test's name heads its section
        report.user_properties.append(
            ("finding", {"verdict": "crash", "blocking": True, "message": message,
                         "case": case, "count": 1})
        )  # fmt: skip


class EveryTestReports:
    """Registered in the xdist controller: a run in which a collected test
    never reported (its workers died past xdist's restarts) fails, naming
    each such test, instead of ending green without it."""

    def __init__(self) -> None:
        self.collected: set[str] = set()
        self.reported: set[str] = set()

    @pytest.hookimpl(optionalhook=True)
    def pytest_xdist_node_collection_finished(self, node, ids: list[str]) -> None:  # noqa: ANN001
        self.collected.update(ids)

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        self.reported.add(report.nodeid)

    def missing(self) -> list[str]:
        return sorted(self.collected - self.reported)

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        if self.missing() and session.exitstatus in (pytest.ExitCode.OK, 0):
            session.exitstatus = pytest.ExitCode.TESTS_FAILED

    def pytest_terminal_summary(self, terminalreporter) -> None:  # noqa: ANN001 - pytest's type
        missing = self.missing()
        if not missing:
            return
        terminalreporter.section("tests that never reported", red=True)
        terminalreporter.write_line(
            f"{len(missing)} collected test(s) never ran to a verdict: their workers died "
            "(a kernel killed its process) past pytest-xdist's restarts "
            "(--max-worker-restart). Run each alone with -n 0, or raise the restarts:"
        )
        for nodeid in missing:
            terminalreporter.write_line(f"  {nodeid}")
