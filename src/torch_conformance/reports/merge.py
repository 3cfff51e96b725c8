"""Merge run reports into the torch-version matrix and compare it with an earlier one.

    python -m torch_conformance.reports.merge reports/out --md matrix.md --html matrix.html \\
        --json matrix.json --against previous/matrix.json

Arguments are run reports (``pytest --report-json``), merged matrices, or
folders of either. The exit status is 1 when a Cell has a blocking Finding
that the earlier matrix (``--against``) did not have there, so a nightly job
goes red on a new break and stays green on old ones; 0 otherwise.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from torch_conformance.reports.html_page import html_page
from torch_conformance.reports.markdown import markdown
from torch_conformance.reports.matrix import Matrix
from torch_conformance.reports.regressions import compare


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m torch_conformance.reports.merge", description=__doc__
    )
    parser.add_argument("reports", nargs="+", type=Path, help="run reports, matrices or folders")
    parser.add_argument("--json", type=Path, help="write the merged matrix here")
    parser.add_argument("--md", type=Path, help="write its Markdown table here")
    parser.add_argument("--html", type=Path, help="write its self-contained HTML page here")
    parser.add_argument("--against", type=Path, help="an earlier matrix to compare with")
    options = parser.parse_args(argv)
    missing = [str(p) for p in options.reports if not p.exists()]
    if missing:
        parser.error(f"no such report: {', '.join(missing)}")
    matrix = Matrix.load(options.reports).sorted()
    if not matrix.runs:
        parser.error("no run reports found in " + ", ".join(map(str, options.reports)))
    regressions = None
    if options.against is not None:
        regressions = compare(Matrix.load([options.against]), matrix)
    outputs = {
        options.json: matrix.to_json,
        options.md: lambda: markdown(matrix, regressions),
        options.html: lambda: html_page(matrix, regressions),
    }
    for path, render in outputs.items():
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(render())
    print(f"{len(matrix.runs)} runs: {', '.join(matrix.releases)}")
    if regressions is not None:
        print(regressions.text())
        return 1 if regressions.blocking else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
