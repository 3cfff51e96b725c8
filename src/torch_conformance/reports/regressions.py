"""What changed between an earlier matrix and this one.

Cells are compared row by row for each release both matrices ran, and for
releases new to this one. A blocking verdict a Cell did not have before, in
a row and release, is a new blocking Finding: it turns a nightly red. Cells
that stopped failing, and Findings whose messages changed (another shrunk
Case, another count), are reported without blocking.
"""

from __future__ import annotations

import dataclasses

from torch_conformance.reports.matrix import FAIL, Cell, Matrix, Row


@dataclasses.dataclass(frozen=True)
class Change:
    row: Row
    release: str
    before: str  # the Cell's summary in the earlier matrix ("not run" if absent)
    after: str
    findings: tuple[str, ...]  # the Findings that are new or changed

    def line(self) -> str:
        said = "".join(f"\n    {finding}" for finding in self.findings)
        return f"{self.row.label} on {self.release}: {self.before} -> {self.after}{said}"


@dataclasses.dataclass
class Regressions:
    newly_failing: list[Change]  # a new blocking Finding (or a new failure)
    newly_passing: list[Change]
    changed: list[Change]  # the same status, other Findings
    gone: list[Change]  # rows no longer run

    @property
    def blocking(self) -> bool:
        return bool(self.newly_failing)

    def sections(self) -> list[tuple[str, list[Change]]]:
        return [
            ("newly failing", self.newly_failing),
            ("newly passing", self.newly_passing),
            ("changed Findings", self.changed),
            ("no longer run", self.gone),
        ]

    def text(self) -> str:
        if not any(changes for _, changes in self.sections()):
            return "no change since the earlier matrix"
        lines = []
        for title, changes in self.sections():
            if changes:
                lines.append(f"{title} ({len(changes)}):")
                lines += [f"  {change.line()}" for change in changes]
        return "\n".join(lines)


def _said(cell: Cell) -> set[str]:
    return {
        f"[{f['verdict']}]{'' if f['blocking'] else ' (non-blocking)'} {f['message']}"
        for f in cell.findings
    }


def compare(before: Matrix, after: Matrix) -> Regressions:
    old, new = before.cells(), after.cells()
    result = Regressions([], [], [], [])
    for row, cells in new.items():
        for release, cell in cells.items():
            earlier = old.get(row, {}).get(release)
            was = earlier.summary() if earlier is not None else "not run"
            said = _said(cell) - (_said(earlier) if earlier is not None else set())
            change = Change(row, release, was, cell.summary(), tuple(sorted(said)))
            new_verdicts = cell.blocking - (earlier.blocking if earlier is not None else set())
            if new_verdicts:
                result.newly_failing.append(change)
            elif earlier is not None and earlier.status == FAIL and cell.status != FAIL:
                result.newly_passing.append(change)
            elif earlier is not None and (
                said or (earlier.status, earlier.faults) != (cell.status, cell.faults)
            ):
                result.changed.append(change)
    for row, cells in old.items():
        for release, cell in cells.items():
            if release in after.releases and release not in new.get(row, {}):
                result.gone.append(Change(row, release, cell.summary(), "not run", ()))
    return result
