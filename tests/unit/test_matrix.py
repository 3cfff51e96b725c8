"""The torch-version matrix: merging run reports, rendering them, and the
regression diff a nightly job goes red on."""

from __future__ import annotations

import copy
import json
import os
import re
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest

from torch_conformance.reports.html_page import html_page
from torch_conformance.reports.markdown import markdown
from torch_conformance.reports.matrix import Matrix
from torch_conformance.reports.merge import main

FAILURE = {
    "verdict": "values",
    "blocking": True,
    "message": "out[0]: 3 of 64 elements differ bit for bit between inductor and eager <x>",
    "case": "2-D contiguous: query=float32[2, 64]",
    "count": 1,
}
KNOWN = {
    "verdict": "known compiler fault",
    "blocking": False,
    "message": "[values] buffer 'query' after the call (explained by the known Inductor "
    "fault 'dynamic-shape write-back')",
    "case": "fused QKV column slices",
    "count": 4,
    "fault": "dynamic-shape write-back",
}


def _record(spec, check, mode, outcome="passed", findings=(), **more):
    return {
        "test": f"torch_conformance/test_conformance.py::test_{check}[{spec}-{mode}]",
        "spec": spec,
        "check": check,
        "mode": mode,
        "outcome": outcome,
        "duration_s": 1.5,
        "cases": 100,
        "findings": list(findings),
        **more,
    }


def _run(torch: str, results: list[dict]) -> dict:
    return {
        "format": 2,
        "torch": torch,
        "triton": "3.9.0",
        "python": "3.11.7",
        "machine": "x86_64, 2 cores",
        "profile": "ci",
        "finished": "2026-12-01T00:00:00+00:00",
        "wall_s": 540.0,
        "checks": {},
        "results": results,
    }


def _results() -> list[dict]:
    return [
        _record("rope-rotary_embedding", "fake", "fake"),
        _record("rope-rotary_embedding", "compiled", "inductor", findings=[KNOWN]),
        _record(
            "rope-triton-rotary_embedding_triton_native",
            "compiled",
            "inductor",
            outcome="skipped",
            cases=0,
            reason="rotary_embedding_triton_native: no CUDA device: runs where one exists",
        ),
        _record(
            "dynamic-shape write-back",
            "known_fault",
            "inductor",
            reproduces=True,
            about="an in-place write-back lands at the wrong offset; upstream "
            "pytorch/pytorch#198068; repro: python upstream/dynamic_write_back.py",
        ),
    ]


def _failing(results: list[dict]) -> list[dict]:
    """``results`` with a synthetic new failure of the fake check."""
    results = copy.deepcopy(results)
    results[0].update(
        outcome="failed",
        findings=[FAILURE],
        report="fake check of rotary_embedding failed on 2-D contiguous",
        failures=[
            {
                "case": FAILURE["case"],
                "rerun": (
                    "pytest 'torch_conformance/test_conformance.py::test_fake[x]' --replay=x.cases"
                ),
                "script": "reports/out/repro/x.py",
                "script_text": "import torch\nprint('repro <here>')\n",
                "script_problem": None,
            }
        ],
    )
    return results


def _write(path: Path, report: dict) -> Path:
    path.write_text(json.dumps(report))
    return path


@pytest.fixture
def matrix_files(tmp_path) -> dict[str, Path]:
    return {
        "old213": _write(tmp_path / "old213.json", _run("2.13.0+cpu", _results())),
        "old211": _write(tmp_path / "old211.json", _run("2.11.0+cu130", _results())),
        "new213": _write(tmp_path / "new213.json", _run("2.13.0+cpu", _failing(_results()))),
    }


def test_a_matrix_has_a_row_per_check_and_mode_and_a_column_per_release(matrix_files):
    matrix = Matrix.load([matrix_files["old213"], matrix_files["old211"]]).sorted()
    assert matrix.releases == ["2.11.0+cu130", "2.13.0+cpu"]  # oldest first
    table = markdown(matrix)
    assert "| spec | check | mode | 2.11.0+cu130 | 2.13.0+cpu |" in table
    assert "| rope-rotary_embedding | fake | fake | pass (100) | pass (100) |" in table
    assert (
        "| rope-rotary_embedding | compiled | inductor | known fault: dynamic-shape write-back "
        "(100) | known fault: dynamic-shape write-back (100) |"
    ) in table
    assert "| compiled | inductor | skipped (1) | skipped (1) |" in table
    assert "1. rotary_embedding_triton_native: no CUDA device: runs where one exists" in table
    assert "| dynamic-shape write-back | reproduces | reproduces |" in table
    assert "- **dynamic-shape write-back**: an in-place write-back lands at the wrong offset; " in (
        table
    )


def test_merged_matrices_merge_again_without_loss(matrix_files, tmp_path):
    merged = tmp_path / "merged.json"
    assert (
        main([str(matrix_files["old213"]), str(matrix_files["old211"]), "--json", str(merged)]) == 0
    )
    again = Matrix.load([merged, matrix_files["new213"]])
    assert len(again.runs) == 3
    assert again.releases == ["2.11.0+cu130", "2.13.0+cpu (run 2)", "2.13.0+cpu (run 3)"]


def test_the_diff_exits_zero_on_identical_matrices(matrix_files, capsys):
    assert main([str(matrix_files["old213"]), "--against", str(matrix_files["old213"])]) == 0
    assert "no change since the earlier matrix" in capsys.readouterr().out


def test_the_diff_names_a_new_blocking_finding_and_exits_non_zero(matrix_files, capsys):
    code = main([str(matrix_files["new213"]), "--against", str(matrix_files["old213"])])
    out = capsys.readouterr().out
    assert code == 1
    assert "newly failing (1):" in out
    assert (
        "rope-rotary_embedding · fake · fake on 2.13.0+cpu: pass (100) -> fail: values (100)" in out
    )
    assert FAILURE["message"] in out


def test_a_fixed_failure_is_newly_passing_and_exits_zero(matrix_files, capsys):
    assert main([str(matrix_files["old213"]), "--against", str(matrix_files["new213"])]) == 0
    out = capsys.readouterr().out
    assert "newly passing (1):" in out and "fail: values (100) -> pass (100)" in out


def test_an_old_failure_stays_green_and_a_changed_message_is_reported(
    matrix_files, tmp_path, capsys
):
    reworded = _failing(_results())
    reworded[0]["findings"][0] = dict(FAILURE, message="out[0]: 5 of 64 elements differ")
    later = _write(tmp_path / "later.json", _run("2.13.0+cpu", reworded))
    assert main([str(later), "--against", str(matrix_files["new213"])]) == 0
    out = capsys.readouterr().out
    assert "changed Findings (1):" in out and "5 of 64 elements differ" in out


def test_a_failure_on_a_release_new_to_the_matrix_is_new(matrix_files, tmp_path):
    newer = _write(tmp_path / "newer.json", _run("2.15.0+cu132", _failing(_results())))
    assert main([str(newer), "--against", str(matrix_files["old213"])]) == 1


class _Page(HTMLParser):
    """The cells of a rendered page and every address it would load."""

    def __init__(self):
        super().__init__()
        self.cells: list[dict] = []
        self.addresses: list[str] = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "td" and "data-release" in attrs:
            self.cells.append(attrs)
        self.addresses += [v for k, v in attrs.items() if k in ("src", "href", "srcset") and v]


def _cells_and_text(page: str) -> tuple[_Page, str]:
    parser = _Page()
    parser.feed(page)
    text = re.sub(r"<[^>]+>", "", page)
    return parser, text


def _every_finding_is_on(page: str, reports: list[dict]) -> None:
    from html import unescape

    parser, text = _cells_and_text(page)
    text = unescape(text)
    records = [r for report in reports for r in report["results"]]
    assert len(parser.cells) == len(records)
    for record in records:
        for finding in record["findings"]:
            assert finding["message"] in text and finding["case"] in text
        for failure in record.get("failures", []):
            assert failure["script_text"] in text and failure["rerun"] in text
        if record["outcome"] == "skipped":
            assert record["reason"] in text
        if "about" in record:
            assert record["about"] in text


def test_the_html_page_holds_every_finding_and_loads_nothing(matrix_files):
    reports = [json.loads(matrix_files[k].read_text()) for k in ("old211", "new213")]
    page = html_page(Matrix.of(reports).sorted())
    _every_finding_is_on(page, reports)
    parser, _ = _cells_and_text(page)
    assert parser.addresses == []
    assert not re.search(r"url\(|@import|<script|<link|<iframe|https?://", page)
    statuses = {cell["class"] for cell in parser.cells}
    assert statuses == {"cell pass", "cell fail", "cell known", "cell skipped"}


CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.mark.skipif(CHROMIUM is None, reason="no chromium: apt-get install chromium")
def test_a_real_browser_renders_every_cell(matrix_files, tmp_path):
    reports = [json.loads(matrix_files[k].read_text()) for k in ("old211", "new213")]
    page = tmp_path / "matrix.html"
    page.write_text(html_page(Matrix.of(reports).sorted()))
    dom = subprocess.run(
        [CHROMIUM, *HEADLESS, f"--user-data-dir={tmp_path / 'profile'}", "--dump-dom",
         page.as_uri()],
        capture_output=True, text=True, timeout=120, check=True,
    ).stdout  # fmt: skip
    _every_finding_is_on(dom, reports)


# Chromium headless and offline: no sandbox (root in CI), no GPU, no
# connections of its own.
HEADLESS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
)


TOX = shutil.which("tox")


@pytest.mark.skipif(TOX is None, reason="no tox: pip install -e '.[dev]'")
def test_tox_merges_the_reports_of_the_matrix(matrix_files, tmp_path):
    out = tmp_path / "matrix"
    result = subprocess.run(
        [TOX, "-e", "matrix", "-q", "--workdir", str(tmp_path / "tox")],
        cwd=Path(__file__).resolve().parents[2],
        env={**os.environ, "MATRIX_REPORTS": str(matrix_files["old213"].parent),
             "MATRIX_OUT": str(out)},
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert result.returncode == 0, result.stdout[-2000:]
    assert "3 runs: 2.11.0+cu130, 2.13.0+cpu (run 2), 2.13.0+cpu (run 3)" in result.stdout
    assert len(Matrix.load([out / "matrix.json"]).runs) == 3
    assert "| spec | check | mode |" in (out / "matrix.md").read_text()
    assert "<table" in (out / "matrix.html").read_text()
