"""The torch-version matrix: run reports merged into one table of Cells.

A run report (``pytest --report-json``) holds one release's records; a
merged matrix is the list of its run reports, so merging merged matrices
again, or a matrix with a new night's runs, loses nothing. A row is one
spec × check × Mode, a column one release, and a Cell says what that check
did there: pass, fail, known fault (with the fault's name) or skipped (with
the reason), and how many Cases it judged.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterable
from pathlib import Path

PASS, FAIL, KNOWN, SKIPPED = "pass", "fail", "known fault", "skipped"
LEGEND = (
    "Each cell: pass, fail (its blocking verdicts), known fault (the faults that explained "
    "its Findings) or skipped (the note says why), with the number of Cases judged."
)
RUN_HEADS = ("torch", "triton", "python", "profile", "machine", "wall time", "finished")
# The check that reproduces a known fault with its standalone script.
KNOWN_FAULT_CHECK = "known_fault"


@dataclasses.dataclass(frozen=True)
class Row:
    spec: str
    check: str
    mode: str

    @property
    def label(self) -> str:
        return f"{self.spec} · {self.check} · {self.mode}"


@dataclasses.dataclass(frozen=True)
class Cell:
    """One record of one release, with its status made explicit."""

    record: dict

    @property
    def status(self) -> str:
        outcome = self.record["outcome"]
        if outcome == "skipped":
            return SKIPPED
        if outcome != "passed":
            return FAIL
        return KNOWN if self.faults else PASS

    @property
    def faults(self) -> list[str]:
        """The known compiler faults that explained Findings of this check."""
        return sorted({f["fault"] for f in self.findings if f.get("fault")})

    @property
    def findings(self) -> list[dict]:
        return self.record.get("findings", [])

    @property
    def blocking(self) -> set[str]:
        """The verdicts of its blocking Findings (a failure without any, such
        as an error in the harness, counts as the verdict "error")."""
        verdicts = {f["verdict"] for f in self.findings if f["blocking"]}
        return verdicts or ({"error"} if self.status == FAIL else set())

    @property
    def cases(self) -> int | None:
        return self.record.get("cases")

    @property
    def reason(self) -> str:
        return self.record.get("reason", "")

    @property
    def reproduces(self) -> bool | None:
        """For a known fault's row: whether its script reproduced it."""
        return self.record.get("reproduces")

    def summary(self) -> str:
        """The Cell in a few words: ``pass (100)``, ``fail: values (12)``."""
        count = f" ({self.cases})" if self.cases is not None else ""
        if self.reproduces is not None:
            words = "reproduces" if self.reproduces else "does not reproduce"
            return words if self.status == PASS else f"{words}: its entry disagrees"
        if self.status == FAIL:
            return f"fail: {', '.join(sorted(self.blocking))}{count}"
        if self.status == KNOWN:
            return f"known fault: {', '.join(self.faults)}{count}"
        if self.status == SKIPPED:
            return "skipped"
        return f"pass{count}"


@dataclasses.dataclass
class Matrix:
    runs: list[dict]

    @classmethod
    def of(cls, reports: Iterable[dict]) -> Matrix:
        runs: list[dict] = []
        for report in reports:
            runs += report["runs"] if "runs" in report else [report]
        return cls(runs)

    @classmethod
    def load(cls, paths: Iterable[Path]) -> Matrix:
        """The matrix of these run reports, merged matrices, or folders of either."""
        files = []
        for path in map(Path, paths):
            files += sorted(path.glob("*.json")) if path.is_dir() else [path]
        return cls.of(json.loads(file.read_text()) for file in files)

    def to_json(self) -> str:
        return json.dumps({"runs": self.runs}, indent=1) + "\n"

    @property
    def releases(self) -> list[str]:
        """One column per run, named by its torch version, oldest first."""
        names = [run["torch"] for run in self.runs]
        return [
            name if names.count(name) == 1 else f"{name} (run {i + 1})"
            for i, name in enumerate(names)
        ]

    def run_facts(self) -> list[list[str]]:
        """A line of facts per run, under RUN_HEADS."""
        facts = []
        for release, run in zip(self.releases, self.runs, strict=True):
            fields = [release, run.get("triton"), run.get("python"), run.get("profile")]
            fields += [run.get("machine"), f"{run.get('wall_s', 0) / 60:.1f} min"]
            facts.append([str(f or "") for f in [*fields, run.get("finished")]])
        return facts

    def cells(self) -> dict[Row, dict[str, Cell]]:
        """Every row's Cells by release, rows by spec, then in the order of
        the checks and of each check's Modes."""
        table: dict[Row, dict[str, Cell]] = {}
        order: dict[tuple[str, str], int] = {}  # (check, Mode): rank
        for release, run in zip(self.releases, self.runs, strict=True):
            for check, about in run.get("checks", {}).items():
                for mode in about["modes"]:
                    order.setdefault((check, mode), len(order))
            for record in run["results"]:
                row = Row(record["spec"], record["check"], record["mode"] or "")
                table.setdefault(row, {})[release] = Cell(record)
        rank = lambda row: (row.spec, order.get((row.check, row.mode), len(order)))  # noqa: E731
        return {row: table[row] for row in sorted(table, key=rank)}

    def check_rows(self) -> dict[Row, dict[str, Cell]]:
        return {r: c for r, c in self.cells().items() if r.check != KNOWN_FAULT_CHECK}

    def fault_rows(self) -> dict[Row, dict[str, Cell]]:
        return {r: c for r, c in self.cells().items() if r.check == KNOWN_FAULT_CHECK}

    def sorted(self) -> Matrix:
        """The same runs, ordered by release (numerically: 2.9 before 2.10)."""
        return Matrix(sorted(self.runs, key=lambda run: _version_key(run["torch"])))


def _version_key(version: str) -> tuple:
    release = version.split("+")[0]
    return tuple(int(part) if part.isdigit() else 0 for part in release.split(".")), version
