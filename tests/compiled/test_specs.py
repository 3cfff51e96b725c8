"""Spec loading and validation: malformed specs get errors that name them."""

from __future__ import annotations

import pickle
import subprocess
import sys
import textwrap
from pathlib import Path
from types import SimpleNamespace

import pytest

from tests.collecting import collect
from torch_conformance.families.rope.cases import rope_cases
from torch_conformance.kernels import build
from torch_conformance.oracles.core.specification import Spec, SpecError, Unavailable
from torch_conformance.oracles.runner.loading import load_specs, validate
from torch_conformance.suites import test_conformance

CHECKOUT = Path(__file__).resolve().parents[2]


def write(tmp_path: Path, body: str) -> str:
    path = tmp_path / "my_specs.py"
    path.write_text(textwrap.dedent(body))
    return str(path)


def test_loads_a_file_and_a_module():
    assert [s.name for s in load_specs("torch_conformance.families.rope.specs")][
        0
    ] == "rotary_embedding"
    assert "rope_overrun" in [s.name for s in load_specs("torch_conformance.suites.zoo")]


def test_malformed_spec_names_the_spec_and_each_problem(tmp_path):
    path = write(
        tmp_path,
        """
        from torch_conformance.spec import Spec
        SPECS = [Spec(name="my_op", op=42, cases=[1, 2], reference=None, ulp_budget=-1)]
        """,
    )
    with pytest.raises(SpecError) as info:
        load_specs(path)
    message = str(info.value)
    assert "spec 'my_op'" in message
    assert "op 42 is not callable" in message
    assert "cases must be a Hypothesis strategy of Case, got list" in message
    assert "ulp_budget must be an int >= 0, got -1" in message


def test_module_without_specs(tmp_path):
    with pytest.raises(SpecError, match="defines no SPECS"):
        load_specs(write(tmp_path, "X = 1\n"))


def test_module_that_fails_to_import(tmp_path):
    with pytest.raises(SpecError, match="importing the spec module failed: NameError"):
        load_specs(write(tmp_path, "SPECS = [undefined]\n"))


def test_unknown_op_name_is_reported_when_resolved():
    spec = validate(
        Spec(name="ghost", op="nowhere::ghost", cases=rope_cases(), reference=None), "here"
    )
    with pytest.raises(SpecError, match="no op 'nowhere::ghost' is registered"):
        spec.resolve()


def test_budgeted_spec_needs_a_reference():
    spec = Spec(name="x", op=abs, cases=rope_cases(), reference=None, bit_exact=False)
    with pytest.raises(SpecError, match="bit_exact=False needs a reference"):
        validate(spec, "here")


def test_unavailable_prerequisites_skip_with_the_reason():
    def prepare():
        raise Unavailable("no C++ compiler: 'c++' is not on PATH")

    spec = Spec(name="x", op=abs, cases=rope_cases(), reference=None, prepare=prepare)
    options = {"--replay": None, "--specs": [], "--specs-from": [], "--batch-size": None}
    options["--device"] = "cpu"
    options["--repro-dir"] = CHECKOUT
    request = SimpleNamespace(
        config=SimpleNamespace(getoption=options.get),
        node=SimpleNamespace(nodeid="x", user_properties=[]),
    )
    with pytest.raises(pytest.skip.Exception, match="x: no C\\+\\+ compiler"):
        test_conformance.test_fake(spec, "fake", request, None)


def test_missing_compiler_is_named(monkeypatch):
    monkeypatch.setenv("CXX", "no-such-compiler")
    assert "no C++ compiler: 'no-such-compiler' is not on PATH" in build.toolchain_problem()


def _pytest(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "--conformance-only",
            "--collect-only",
            "-q",
            "-n",
            "0",
            *args,
        ],
        cwd=CHECKOUT,
        capture_output=True,
        text=True,
    )


def test_specs_option_reports_a_malformed_module(tmp_path):
    path = write(tmp_path, "SPECS = [1]\n")
    result = _pytest(f"--specs={path}")
    assert result.returncode == 4
    assert "--specs: " in result.stderr and "is a int, not a Spec" in result.stderr


@pytest.mark.parametrize(
    "option, says",
    [
        ("--hypothesis-profile=nope", "--hypothesis-profile=nope: no such profile; the profiles"),
        ("--replay=no-such.cases", "--replay: cannot read no-such.cases: No such file"),
        ("--replay={pickled}", "holds no Cases to replay"),
    ],
)
def test_bad_command_line_input_gets_one_line(option, says, tmp_path):
    pickled = tmp_path / "old.cases"
    pickled.write_bytes(pickle.dumps({"cases": []}))  # replay files are data, never pickles
    result = _pytest(option.format(pickled=pickled))
    assert result.returncode == 4, result.stdout[-2000:]
    assert says in result.stderr
    assert "Traceback" not in result.stderr and "INTERNALERROR" not in result.stderr + result.stdout


def test_k_selects_by_family_and_by_spec_name():
    selected, by_name = collect(["-k", "rope"], ["-k", "rotary_embedding_torch"])
    assert "test_fake[rope-rotary_embedding]" in selected.stdout
    assert "test_compiled[rope-rotary_embedding_torch-inductor]" in by_name.stdout
    assert "test_compiled[rope-rotary_embedding-inductor]" not in by_name.stdout


def test_a_run_of_user_specs_runs_only_what_concerns_them():
    user, nightly, ci, dev = collect(
        [f"--specs={CHECKOUT / 'tests' / 'user_specs' / 'argument_specs.py'}"],
        ["--hypothesis-profile=nightly"],
        ["--hypothesis-profile=ci"],
        [],
    )
    assert "test_fake[" in user.stdout
    assert "test_known_fault" not in user.stdout and "NOTSET" not in user.stdout
    # The nightly runs the known faults' scripts; the PR gate and the quick dev run do not.
    assert "test_known_fault[dynamic_write_back]" in nightly.stdout
    assert "test_known_fault" not in ci.stdout
    assert "test_known_fault" not in dev.stdout


def test_spec_selects_exactly_one_spec_by_name():
    selected, unknown = collect(["--spec", "rms_norm"], ["--spec", "rms_nrom"])
    assert "test_fake[norm-rms_norm]" in selected.stdout
    assert "rms_norm_triton" not in selected.stdout and "fused_add_rms_norm" not in selected.stdout
    assert unknown.returncode != 0
    assert "--spec: no spec rms_nrom; the specs are " in unknown.stderr


def test_k_selects_a_mode_and_profiles_choose_modes():
    *runs, wrong = collect(
        [],
        ["--modes=all", "-k", "inductor_triton"],
        ["--modes=all", "-k", "triton"],
        ["--modes=all", "-k", "no_size_asserts"],
        ["--hypothesis-profile=ci"],
        ["--hypothesis-profile=nightly", "-k", "rotary_embedding_triton-"],
        ["--hypothesis-profile=ci", "--modes=aot_eager"],
        ["--hypothesis-profile=ci", "--modes=inductor_no_size_asserts"],
        ["--modes=inductor_tritn"],
    )
    dev, triton, every_triton, no_asserts, ci, nightly, chosen, forced = (r.stdout for r in runs)
    # dev runs inductor alone; --modes=all selects every compiled Mode.
    assert "test_compiled[rope-rotary_embedding-inductor]" in dev and "-inductor_triton]" not in dev
    assert "test_compiled[rope-rotary_embedding-inductor_triton]" in triton
    assert "-inductor]" not in triton and "test_fake" not in triton
    # -k triton also selects the Triton kernels' specs, in every check.
    assert "test_fake[rope-triton-rotary_embedding_triton]" in every_triton
    assert "test_compiled[rope-rotary_embedding_functional-inductor_no_size_asserts]" in no_asserts
    # The ci profile, the PR gate, runs inductor alone, the nightly every
    # Mode; --modes chooses others.
    assert "test_compiled[rope-rotary_embedding-inductor]" in ci
    assert "-inductor_triton]" not in ci and "-inductor_no_size_asserts]" not in ci
    assert "rotary_embedding_triton-inductor_no_size_asserts]" in nightly
    assert "-aot_eager]" in chosen and "-inductor]" not in chosen
    assert "test_fake[rope-rotary_embedding]" in chosen
    assert "test_compiled[rope-triton-rotary_embedding_triton-inductor_no_size_asserts]" in forced
    assert "--modes: no Mode inductor_tritn; the compiled Modes are inductor, " in wrong.stderr


def test_a_rerun_names_only_the_spec_file_that_defines_the_spec(tmp_path):
    common = """
        import torch
        from hypothesis import strategies as st
        from torch_conformance.spec import Spec
        """
    files = {}
    for name, op in (("wrong", "torch.neg"), ("right", "torch.clone")):
        files[name] = tmp_path / f"{name}_specs.py"
        files[name].write_text(
            textwrap.dedent(common) + f"SPECS = [Spec({name!r}, {op}, st.nothing(), None)]\n"
        )
    targets = [str(files["wrong"]), str(files["right"])]
    config = SimpleNamespace(getoption={"--specs": targets}.get)
    [spec] = load_specs(targets[0])
    assert test_conformance._defining(spec, config) == [targets[0]]
