"""The matrix as one self-contained HTML page.

The page loads nothing: its style is inline and it has no script. Each
Cell is a ``<details>`` element that opens to its Findings, its shrunk
Cases, the commands that rerun them and the standalone repro scripts.
"""

from __future__ import annotations

from html import escape

from torch_conformance.reports.matrix import (
    FAIL,
    KNOWN,
    LEGEND,
    PASS,
    RUN_HEADS,
    SKIPPED,
    Cell,
    Matrix,
    Row,
)
from torch_conformance.reports.regressions import Regressions

STYLE = """
body { font: 14px/1.4 system-ui, sans-serif; margin: 1.5em; color: #1b1b1b; }
table { border-collapse: collapse; margin: 0.5em 0 1.5em; }
th, td { border: 1px solid #c8c8c8; padding: 0.25em 0.5em; text-align: left;
  vertical-align: top; }
th { background: #f0f0f0; }
td.cell { min-width: 7em; max-width: 15em; }
td.pass { background: #e3f4e1; }
td.fail { background: #fadbd8; font-weight: 600; }
td.known { background: #fdf1d0; }
td.skipped { background: #ececec; color: #555; }
summary { cursor: pointer; }
details[open] > .panel { position: fixed; z-index: 2; left: 1em; right: 1em;
  bottom: 1em; max-height: 55vh; overflow: auto; background: #fff;
  border: 1px solid #888; box-shadow: 0 4px 12px rgba(0, 0, 0, 0.25);
  padding: 0.5em 1em; white-space: normal; font-weight: normal; }
pre { background: #f6f6f6; padding: 0.5em; overflow-x: auto; white-space: pre-wrap; }
.verdict { font-family: monospace; }
"""

_CLASS = {PASS: "pass", FAIL: "fail", KNOWN: "known", SKIPPED: "skipped"}


def html_page(matrix: Matrix, regressions: Regressions | None = None) -> str:
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        "<title>Conformance matrix</title>",
        f"<style>{STYLE}</style></head><body>",
        "<h1>Conformance matrix</h1>",
        _runs(matrix),
        "<h2>Checks</h2>",
        f"<p>{LEGEND} Open a cell for its Findings, shrunk Cases and repros.</p>",
        _table(matrix, matrix.check_rows(), ("spec", "check", "mode")),
    ]
    faults = matrix.fault_rows()
    if faults:
        parts += [
            "<h2>Known compiler faults</h2>",
            "<p>Where each fault's standalone script (<code>upstream/</code>) reproduces it.</p>",
            _table(matrix, faults, ("fault",)),
        ]
    if regressions is not None:
        parts += [
            "<h2>Changes since the earlier matrix</h2>",
            f"<pre>{escape(regressions.text())}</pre>",
        ]
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"


def _runs(matrix: Matrix) -> str:
    head = "".join(f"<th>{h}</th>" for h in RUN_HEADS)
    body = "".join(
        "<tr>" + "".join(f"<td>{escape(fact)}</td>" for fact in facts) + "</tr>"
        for facts in matrix.run_facts()
    )
    return f'<table class="runs"><tr>{head}</tr>{body}</table>'


def _table(matrix: Matrix, rows: dict[Row, dict[str, Cell]], heads: tuple[str, ...]) -> str:
    head = "".join(f"<th>{escape(h)}</th>" for h in (*heads, *matrix.releases))
    lines = [f'<table class="matrix"><tr>{head}</tr>']
    for row, cells in rows.items():
        keys = [row.spec, row.check, row.mode][: len(heads)]
        tds = "".join(f"<th>{escape(key)}</th>" for key in keys)
        tds += "".join(_cell(row, release, cells.get(release)) for release in matrix.releases)
        lines.append(f"<tr>{tds}</tr>")
    lines.append("</table>")
    return "\n".join(lines)


def _cell(row: Row, release: str, cell: Cell | None) -> str:
    if cell is None:
        return '<td class="absent">—</td>'
    where = f'data-row="{escape(row.label)}" data-release="{escape(release)}"'
    # A known fault's row: amber where it reproduces, unless its entry is wrong.
    status = KNOWN if cell.reproduces and cell.status == PASS else cell.status
    return (
        f'<td class="cell {_CLASS[status]}" {where}><details>'
        f"<summary>{escape(cell.summary())}</summary>"
        f'<div class="panel">{_panel(row, release, cell)}</div></details></td>'
    )


def _panel(row: Row, release: str, cell: Cell) -> str:
    record = cell.record
    facts = [f"{escape(row.label)} on torch {escape(release)}: {escape(cell.summary())}"]
    if cell.cases is not None:
        facts.append(f"{cell.cases} Cases judged in {record.get('duration_s', 0):.1f} s")
    parts = [f"<p><b>{facts[0]}</b><br>{'; '.join(facts[1:])}</p>"]
    if record.get("about"):
        parts.append(f"<p>{escape(record['about'])}</p>")
    if cell.status == SKIPPED:
        parts.append(f"<p>Skipped: {escape(cell.reason)}</p>")
    if cell.findings:
        items = "".join(_finding(f) for f in cell.findings)
        parts.append(f"<h4>Findings</h4><ul>{items}</ul>")
    for failure in record.get("failures", []):
        parts.append(f"<h4>Shrunk Case</h4><p>{escape(failure['case'])}</p>")
        if failure.get("rerun"):
            parts.append(f"<p>Rerun this Case:</p><pre>{escape(failure['rerun'])}</pre>")
        if failure.get("script_text"):
            what = (
                f"Repro script, not standalone (it exits 2: {escape(failure['script_problem'])})"
                if failure.get("script_problem")
                else "Standalone repro (plain torch)"
            )
            parts.append(
                f"<p>{what}, <code>{escape(failure['script'])}</code>:</p>"
                f"<pre>{escape(failure['script_text'])}</pre>"
            )
        elif failure.get("script_problem"):
            parts.append(f"<p>No standalone repro: {escape(failure['script_problem'])}</p>")
    if cell.status == FAIL and record.get("report"):
        parts.append(f"<h4>Report</h4><pre>{escape(record['report'])}</pre>")
    return "".join(parts)


def _finding(finding: dict) -> str:
    kind = "blocking" if finding["blocking"] else "non-blocking"
    count = f" ×{finding['count']}" if finding.get("count", 1) > 1 else ""
    return (
        f'<li><span class="verdict">[{escape(finding["verdict"])}]</span> {kind}{count}: '
        f"{escape(finding['message'])}<br><i>on {escape(finding['case'])}</i></li>"
    )
