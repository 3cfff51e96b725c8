"""The matrix as Markdown, for a CI job summary or a docs page."""

from __future__ import annotations

from torch_conformance.reports.matrix import FAIL, LEGEND, RUN_HEADS, SKIPPED, Cell, Matrix, Row
from torch_conformance.reports.regressions import Regressions


def markdown(matrix: Matrix, regressions: Regressions | None = None) -> str:
    notes: list[str] = []  # skip reasons, numbered once each
    lines = ["# Conformance matrix", "", *_runs(matrix), ""]
    lines += [
        "## Checks",
        "",
        LEGEND,
        "",
    ]
    lines += _table(matrix, matrix.check_rows(), notes, ("spec", "check", "mode"))
    faults = matrix.fault_rows()
    if faults:
        lines += [
            "",
            "## Known compiler faults",
            "",
            "Where each fault's standalone script (`upstream/`) reproduces it.",
            "",
        ]
        lines += _table(matrix, faults, notes, ("fault",))
        lines.append("")
        for row, cells in faults.items():
            about = next((c.record["about"] for c in cells.values() if "about" in c.record), None)
            if about is not None:
                lines.append(f"- **{row.spec}**: {about}")
    if notes:
        lines += ["", *(f"{n}. {_cell_text(note)}" for n, note in enumerate(notes, 1))]
    if regressions is not None:
        lines += ["", "## Changes since the earlier matrix", "", "```", regressions.text(), "```"]
    failures = [
        (row, release, cell)
        for row, cells in matrix.cells().items()
        for release, cell in cells.items()
        if cell.status == FAIL
    ]
    if failures:
        lines += ["", "## Failures"]
        for row, release, cell in failures:
            report = cell.record.get("report") or "\n".join(_findings(cell))
            lines += ["", f"### {row.label} on torch {release}", "", "```", report, "```"]
    return "\n".join(lines) + "\n"


def _runs(matrix: Matrix) -> list[str]:
    lines = ["| " + " | ".join(RUN_HEADS) + " |", "|" + " --- |" * len(RUN_HEADS)]
    lines += ["| " + " | ".join(map(_cell_text, facts)) + " |" for facts in matrix.run_facts()]
    return lines


def _table(
    matrix: Matrix, rows: dict[Row, dict[str, Cell]], notes: list[str], heads: tuple[str, ...]
) -> list[str]:
    lines = [
        "| " + " | ".join([*heads, *matrix.releases]) + " |",
        "| " + " | ".join(["---"] * (len(heads) + len(matrix.releases))) + " |",
    ]
    for row, cells in rows.items():
        keys = [row.spec, row.check, row.mode][: len(heads)]
        texts = [_summary(cells.get(release), notes) for release in matrix.releases]
        lines.append("| " + " | ".join(_cell_text(t) for t in [*keys, *texts]) + " |")
    return lines


def _summary(cell: Cell | None, notes: list[str]) -> str:
    if cell is None:
        return "—"
    if cell.status != SKIPPED:
        return cell.summary()
    if cell.reason not in notes:
        notes.append(cell.reason)
    return f"skipped ({notes.index(cell.reason) + 1})"


def _findings(cell: Cell) -> list[str]:
    return [f"[{f['verdict']}] {f['message']} (on {f['case']})" for f in cell.findings]


def _cell_text(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")
