"""Never a stale pass: a ci-profile verdict is kept while nothing it depends
on changes, judged again as soon as anything does (a fake's source, the
spec's Cases, a module the spec imports, the op library's bytes, torch), and
a failure is never kept."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from torch_conformance.oracles.runner import dependencies

OPS = """\
import torch

torch.library.define("store_ns::double", "(Tensor x) -> Tensor")


@torch.library.impl("store_ns::double", "cpu")
def _(x):
    return x * 2


@torch.library.register_fake("store_ns::double")
def _(x):
    return torch.empty_like(x)
"""

HELPERS = """\
SIZES = (1, 6)
"""

SPECS = """\
import torch
from hypothesis import strategies as st

import helpers
import store_ops  # noqa: F401
from torch_conformance import Buffer, Case, Spec, View


@st.composite
def cases(draw):
    shape = (draw(st.integers(*helpers.SIZES)), 4)
    return Case({"x": Buffer(shape, torch.float32)}, {"x": View("x")}, seed=draw(st.integers(0, 9)))


SPECS = [Spec(name="double", op="store_ns::double", cases=cases(), reference=None)]
"""


def _check(folder: Path, *options: str) -> dict[str, dict]:
    """One ci run of the project's specs; each test's record, by test."""
    report = folder / "report.json"
    subprocess.run(
        [sys.executable, "-m", "torch_conformance", "check", "--specs=specs.py",
         "--hypothesis-profile=ci", "-n", "0", "-p", "no:cacheprovider",
         "-k", "test_fake or test_schema",
         f"--verdict-store={folder / 'store'}", f"--report-json={report}", *options],
        cwd=folder, capture_output=True, text=True, timeout=900,
    )  # fmt: skip
    return {r["test"].split("::")[-1]: r for r in json.loads(report.read_text())["results"]}


def _kept(results: dict[str, dict]) -> set[str]:
    return {test for test, r in results.items() if r["kept"]}


@pytest.fixture
def project(tmp_path) -> Path:
    (tmp_path / "store_ops.py").write_text(OPS)
    (tmp_path / "helpers.py").write_text(HELPERS)
    (tmp_path / "specs.py").write_text(SPECS)
    return tmp_path


def test_a_verdict_is_kept_until_what_it_depends_on_changes(project):
    first = _check(project)
    assert len(first) == 2 and not _kept(first)
    assert all(r["outcome"] == "passed" for r in first.values())
    again = _check(project)
    assert _kept(again) == set(again) and all(r["outcome"] == "passed" for r in again.values())
    assert {t: r["cases"] for t, r in again.items()} == {t: r["cases"] for t, r in first.items()}
    for path, old, new in (
        ("helpers.py", "(1, 6)", "(1, 7)"),  # a module the spec imports
        ("specs.py", "), 4)", "), 5)"),  # the spec's Cases
        ("store_ops.py", "torch.empty_like(x)", "x.new_empty(x.shape)"),  # the fake's source
    ):
        file = project / path
        assert old in file.read_text()
        file.write_text(file.read_text().replace(old, new))
        assert not _kept(_check(project)), f"a change of {path} served a kept verdict"
    # --rejudge judges every test again, and keeps the new verdicts.
    assert not _kept(_check(project, "--rejudge"))
    assert _kept(_check(project)) == set(first)


def test_a_bug_planted_after_a_green_run_is_found_on_the_next(project):
    assert not _kept(_check(project))
    fake = project / "store_ops.py"
    fake.write_text(fake.read_text().replace("torch.empty_like(x)", "x.new_empty(x.shape[0])"))
    results = _check(project)
    assert results["test_fake[double]"]["outcome"] == "failed"
    assert not results["test_fake[double]"]["kept"]
    # A failure is never kept: the next run judges it again.
    assert _check(project)["test_fake[double]"]["outcome"] == "failed"


def test_the_machine_part_of_the_key_names_torch(monkeypatch):
    before = dependencies.machine("cpu")
    monkeypatch.setattr(torch, "__version__", "2.99.0")
    assert dependencies.machine("cpu") != before


def test_the_machine_part_of_the_key_names_inductors_settings(monkeypatch):
    before = dependencies.machine("cpu")
    monkeypatch.setenv("TORCHINDUCTOR_CACHE_DIR", "/elsewhere")  # a cache's folder: no setting
    assert dependencies.machine("cpu") == before
    monkeypatch.setenv("TORCHINDUCTOR_FREEZING", "1")
    assert dependencies.machine("cpu") != before


def test_what_inductor_compiled_before_is_not_in_the_key(monkeypatch, tmp_path):
    library = tmp_path / "libops.so"
    library.write_bytes(b"one build")
    monkeypatch.setattr(torch.ops, "loaded_libraries", {str(library)})
    # Its compiled programs load as extension modules too, but differ with what ran first.
    before = dependencies.op_parts(torch.ops.aten.add.Tensor)
    torch.compile(lambda x: x.cos() * 3 - 1)(torch.randn(5))
    assert dependencies.op_parts(torch.ops.aten.add.Tensor) == before


def test_a_python_functions_name_is_its_key_not_its_address():
    def rotate(x):
        return x

    first = rotate

    def rotate(x):  # noqa: F811 - the same function, another object
        return x

    assert dependencies.op_name(first) == dependencies.op_name(rotate)
    assert "0x" not in dependencies.op_name(rotate)
    assert dependencies.op_name(torch.ops.aten.add.Tensor) == dependencies.op_name(
        torch.ops.aten.add.Tensor
    )


def test_an_op_librarys_bytes_are_in_the_key(monkeypatch, tmp_path):
    library = tmp_path / "libops.so"
    library.write_bytes(b"one build")
    monkeypatch.setattr(torch.ops, "loaded_libraries", {str(library)})
    before = dependencies.op_parts(torch.ops.aten.add.Tensor)
    library.write_bytes(b"another build, of another size")
    assert dependencies.op_parts(torch.ops.aten.add.Tensor) != before


def test_a_kept_verdict_and_a_fresh_one_agree_on_the_catalog(tmp_path):
    def run(name: str, *options: str) -> Path:
        report = tmp_path / f"{name}.json"
        subprocess.run(
            [sys.executable, "-m", "torch_conformance", "check", "--hypothesis-profile=ci",
             "-n", "0", "-p", "no:cacheprovider", "-k", "rms_norm and not backward and not triton "
             "and (test_fake or test_schema or test_reference)", f"--report-json={report}",
             f"--verdict-store={tmp_path / 'store'}", *options],
            cwd=tmp_path, capture_output=True, text=True, timeout=900,
        )  # fmt: skip
        return report

    fresh = run("fresh", "--rejudge")
    kept = run("kept")
    assert all(r["kept"] for r in json.loads(kept.read_text())["results"])
    diff = subprocess.run(
        [sys.executable, "-m", "torch_conformance", "diff", str(fresh), str(kept)],
        capture_output=True, text=True,
    )  # fmt: skip
    assert diff.returncode == 0, diff.stdout
