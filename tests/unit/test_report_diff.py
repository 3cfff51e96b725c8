"""``python -m torch_conformance.reports.diff``: two runs of one gate, record by record."""

from __future__ import annotations

import json

from torch_conformance.reports.diff import differences, main, records


def _report(outcome: str = "passed", cases: int = 100, blocking: bool = False) -> dict:
    finding = {"verdict": "values", "blocking": blocking, "message": "m", "count": 2}
    return {
        "results": [
            {
                "spec": "rope-x",
                "check": "compiled",
                "mode": "inductor",
                "outcome": outcome,
                "cases": cases,
                "findings": [finding],
            },
            {
                "spec": "rope-x",
                "check": "fake",
                "mode": "fake",
                "outcome": "passed",
                "cases": 100,
                "findings": [],
            },
        ]
    }


def test_identical_runs_judge_alike(tmp_path, capsys):
    for name in ("a.json", "b.json"):
        (tmp_path / name).write_text(json.dumps(_report()))
    assert main([str(tmp_path / "a.json"), str(tmp_path / "b.json")]) == 0
    assert "every one judged alike" in capsys.readouterr().out


def test_another_outcome_count_or_blocking_verdict_is_a_difference(tmp_path, capsys):
    before = records(_report())
    [line] = differences(before, records(_report("failed", 90, True)))
    assert line == (
        "rope-x / compiled / inductor: outcome passed -> failed; cases 100 -> 90; "
        "verdicts [] -> ['values']"
    )
    gone = {k: v for k, v in before.items() if k[1] != "fake"}
    assert differences(before, gone) == ["rope-x / fake / fake: only in the first run"]
    (tmp_path / "a.json").write_text(json.dumps(_report()))
    (tmp_path / "b.json").write_text(json.dumps(_report("failed", 90, True)))
    assert main([str(tmp_path / "a.json"), str(tmp_path / "b.json")]) == 1
    out = capsys.readouterr().out
    assert (
        "note (non-blocking Findings): rope-x / compiled / inductor: notes ['values'] -> []" in out
    )


def _judged(*cases: tuple[str, list[str]]) -> dict:
    return {"results": [{"test": "test_compiled[rope-x-inductor]", "per_case": dict(cases)}]}


def test_per_case_a_case_judged_by_one_run_only_is_a_difference(tmp_path, capsys):
    (tmp_path / "a.json").write_text(json.dumps(_judged(("c1", []), ("c2", ["values"]))))
    (tmp_path / "b.json").write_text(json.dumps(_judged(("c1", []), ("c2", ["values"]))))
    assert main(["--per-case", str(tmp_path / "a.json"), str(tmp_path / "b.json")]) == 0
    assert "2 Cases judged in both; alike" in capsys.readouterr().out
    # Another Case drawn in its place: the draws depended on what ran before.
    (tmp_path / "b.json").write_text(json.dumps(_judged(("c1", []), ("c3", ["values"]))))
    assert main(["--per-case", str(tmp_path / "a.json"), str(tmp_path / "b.json")]) == 1
    out = capsys.readouterr().out
    assert "1 Cases judged in both; alike; 1 judged by the first run only, 1 by the second" in out
