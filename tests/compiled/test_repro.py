"""Repro scripts: standalone, runnable, and right about the bug they reproduce.

Every script is run as a user would run it: ``python script.py`` in a fresh
folder, with no PYTHONPATH pointing at the checkout. Each run imports torch
(and some compile), so the scripts run here are few.
"""

from __future__ import annotations

import dataclasses
import functools
import math
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import torch
from hypothesis import strategies as st

from tests.zoo_helpers import needs_kernels, zoo_spec
from torch_conformance.families.rope import specs as rope
from torch_conformance.families.rope.cases import fused_qkv_seed_case
from torch_conformance.oracles.core.buffers import DEFAULT, Buffer, Case, View
from torch_conformance.oracles.core.calls import call_op
from torch_conformance.oracles.core.signature import _canonical
from torch_conformance.oracles.core.specification import Spec
from torch_conformance.oracles.core.views import apply_view_ops, view_expression, view_ranks
from torch_conformance.oracles.repro.script import render_repro, write_repro
from torch_conformance.oracles.repro.values import literal

SUITE_IMPORT = re.compile(r"^\s*(import|from)\s+(oracles|kernels|suites|tests|reports)\b", re.M)


def _environment() -> dict[str, str]:
    hidden = ("PYTHONPATH", "PYTHONSTARTUP", "PYTHONHOME", "PYTHONSAFEPATH")
    return {name: value for name, value in os.environ.items() if name not in hidden}


def _run(*scripts: Path, cwd: Path) -> list[subprocess.CompletedProcess]:
    """Run the scripts side by side (the machine has two cores), each with plain python."""
    processes = [
        subprocess.Popen(
            [sys.executable, str(script)],
            cwd=cwd,
            env=_environment(),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for script in scripts
    ]
    results = []
    for process in processes:
        stdout, stderr = process.communicate(timeout=900)
        results.append(
            subprocess.CompletedProcess(process.args, process.returncode, stdout, stderr)
        )
    return results


def _explain(result: subprocess.CompletedProcess) -> str:
    return f"exit {result.returncode}\nstdout:\n{result.stdout}\nstderr:\n{result.stderr[-3000:]}"


# --- Values and views as Python --------------------------------------------


@pytest.mark.parametrize(
    "value",
    [
        float("nan"),
        -float("nan"),
        float("inf"),
        float("-inf"),
        -0.0,
        0.1,
        1e-300,
        3,
        True,
        None,
        'it\'s "quoted"',
        torch.bfloat16,
        torch.device("cpu"),
        torch.channels_last,
        torch.strided,
        (1,),
        [1.5, (2, None), []],
        {"a": (1, 2)},
    ],
)
def test_plain_values_are_written_as_python_that_gives_them_back(value):
    assert _canonical(eval(literal(value), {"torch": torch})) == _canonical(value)


def test_nan_and_dtypes_are_written_readably():
    assert literal(math.nan) == 'float("nan")'
    assert literal([torch.bfloat16, "x"]) == '[torch.bfloat16, "x"]'


VIEWS = [
    ((4, 6144), (("split", (4096, 1024, 1024), -1, 1),)),
    ((4, 6144), (("split", (4096, 1024, 1024), -1, 0), ("view", (4, 32, 128)))),
    ((5, 8), (("narrow", 0, 1, 3),)),
    ((5, 8), (("slice", -1, 0, None, 2),)),
    ((5, 8, 3), (("slice", 1, 1, 7, 3), ("transpose", 0, 2))),
    ((5, 8), (("permute", (1, 0)), ("select", 0, 2))),
    ((5, 1, 8), (("squeeze", 1), ("unsqueeze", 0), ("expand", (3, 5, 8)))),
    ((40,), (("as_strided", (3, 4), (8, 2), 5),)),
    ((6,), (("view", (6,)),)),
]


@pytest.mark.parametrize(("shape", "ops"), VIEWS)
def test_views_are_written_as_the_torch_calls_that_make_them(shape, ops):
    buffer = torch.arange(math.prod(shape)).view(shape)
    expression = view_expression("buffer", ops, view_ranks(buffer, ops), literal)
    made = eval(expression, {"buffer": buffer})
    want = apply_view_ops(buffer, ops)
    assert (made.shape, made.stride(), made.storage_offset()) == (
        want.shape,
        want.stride(),
        want.storage_offset(),
    )
    assert torch.equal(made, want)


def test_a_split_and_a_stepped_slice_read_as_model_code():
    assert (
        view_expression("qkv", (("split", (4096, 1024, 1024), -1, 0),), [2], literal)
        == "qkv.split([4096, 1024, 1024], -1)[0]"
    )
    assert view_expression("x", (("slice", 1, 0, None, 2),), [2], literal) == "x[:, 0:None:2]"
    assert view_expression("x", (("narrow", 0, 1, 3),), [2], literal) == "x.narrow(0, 1, 3)"


# --- Python-function specs -------------------------------------------------


def _rows(count: int, width: int = 8) -> Case:
    return Case(
        buffers={"buffer": Buffer((count + 2, width), torch.float32)},
        args={"x": View("buffer", (("narrow", 0, 1, count),))},
        seed=count,
    )


def _doubled(x: torch.Tensor) -> torch.Tensor:
    return x * 2


def miscompiled(op, **args):
    """Wrong only when compiled: what the Inductor check must catch."""
    out = op(**args)
    return out + 1 if torch.compiler.is_compiling() else out


def _row_spec(program=call_op) -> Spec:
    return Spec(
        name="doubled_rows", op=_doubled, cases=st.just(_rows(3)), reference=None, program=program
    )


BATCH = [_rows(3), _rows(5), _rows(9)]


def test_batched_inductor_scripts_compile_once_and_judge_every_case(tmp_path):
    good = write_repro(_row_spec(), "compiled", BATCH, 2, True, tmp_path / "good" / "repro.py")
    bad = write_repro(_row_spec(miscompiled), "compiled", BATCH, 1, True, tmp_path / "bad.py")
    text = good.read_text()
    assert "dynamic=DYNAMIC" in text and "DYNAMIC = True" in text
    assert "buffer.narrow(0, 1, s0)" in text
    assert 'STATIC_DIMS = [("buffer", 1)]' in text
    assert "def _doubled(x: torch.Tensor) -> torch.Tensor:" in text
    assert "return x * 2" in text
    assert "out + 1 if torch.compiler.is_compiling() else out" in bad.read_text()
    assert not SUITE_IMPORT.search(text)
    ok, wrong = _run(good, bad, cwd=tmp_path)
    assert ok.returncode == 0, _explain(ok)
    assert "OK: the compiled program agrees with eager bit for bit" in ok.stdout
    assert "dynamo_pgo" not in ok.stderr, "the script's caches are off on purpose: no warning"
    assert wrong.returncode == 1, _explain(wrong)
    assert "Case 1 of 2: [values] out[0]" in wrong.stdout
    assert "Case 2 of 2: [values] out[0]" in wrong.stdout
    assert "differ bit for bit between inductor and eager" in wrong.stdout


def test_a_lambda_program_is_cut_out_of_its_statement():
    spec = _row_spec(program=lambda op, **args: op(**args).reshape(-1))  # data movement only
    text = render_repro(spec, "compiled", [_rows(4)], 0, False)
    assert "program = lambda op, **args: op(**args).reshape(-1)\n" in text
    assert "SystemExit" not in text
    assert "DYNAMIC = False" in text
    compile(text, "repro.py", "exec")


def test_an_argument_left_at_its_default_is_left_out_of_the_call():
    case = dataclasses.replace(_rows(4), args={**_rows(4).args, "scale": DEFAULT})
    spec = dataclasses.replace(_row_spec(), op=_scaled)
    text = render_repro(spec, "fake", [case], 0, False)
    arguments = text[text.index("def arguments(") : text.index("# --- Comparisons")]
    assert '"x": buffer.narrow(0, 1, 4),' in arguments
    assert "scale" not in arguments
    assert "def _scaled(x, scale=2.0):" in text


def _scaled(x, scale=2.0):
    return x * scale


def test_code_whose_source_is_lost_stops_the_script_saying_so(tmp_path):
    spec = _row_spec(program=functools.partial(call_op))
    text = render_repro(spec, "compiled", [_rows(4)], 0, False)
    script = tmp_path / "repro.py"
    script.write_text(text)
    done = subprocess.run([sys.executable, script], capture_output=True, text=True)
    # 2, not 1: exit 1 says the bug is still there.
    assert done.returncode == 2
    assert done.stderr.startswith("could not recover the program's source:")


def test_the_reference_and_its_helpers_are_copied_under_names_that_do_not_clash():
    # The pure-PyTorch rope and the float64 reference each have a helper named rotate_heads.
    [spec] = [s for s in rope.SPECS if s.name == "rotary_embedding_torch"]
    text = render_repro(spec, "compiled", [fused_qkv_seed_case()], 0, False)
    assert "SystemExit" not in text
    assert "def rotate_heads(" in text and "def rotate_heads_reference(" in text
    assert "def ulp_error(" in text and "class Expected:" in text
    assert "the compiled program is within 2 ULP of the float64 program" in text
    compile(text, "repro.py", "exec")


# --- Ops defined in Python by the user's module ----------------------------


@torch.library.custom_op("conformance_repro_tests::scaled", mutates_args=())
def scaled(x: torch.Tensor, alpha: float) -> torch.Tensor:
    return (x * alpha).contiguous()


@scaled.register_fake
def _(x, alpha):
    return x.new_empty(x.shape)


def test_a_python_op_is_imported_from_the_users_module(tmp_path):
    case = Case(
        buffers={"x": Buffer((6, 4), torch.float32)},
        args={"x": View("x", (("permute", (1, 0)),)), "alpha": float("-inf")},
    )
    spec = Spec(
        name="scaled",
        op=torch.ops.conformance_repro_tests.scaled.default,
        cases=st.just(case),
        reference=None,
    )
    script = write_repro(spec, "fake", [case], 0, False, tmp_path / "repro.py")
    text = script.read_text()
    assert 'importlib.import_module("tests.compiled.test_repro")' in text
    assert '"alpha": float("-inf")' in text
    assert not SUITE_IMPORT.search(text)
    [result] = _run(script, cwd=tmp_path)
    assert result.returncode == 0, _explain(result)


# --- The zoo ---------------------------------------------------------------


def _zoo_scripts(name: str, checks: tuple[str, ...], folder: Path) -> list[Path]:
    spec = zoo_spec(name)
    with spec.installed():
        return [
            write_repro(spec, check, [fused_qkv_seed_case()], 0, False, folder / f"{check}.py")
            for check in checks
        ]


@needs_kernels
def test_scripts_import_no_part_of_the_suite(tmp_path):
    checks = ("fake", "compiled", "schema", "reference")
    for script in _zoo_scripts("rope_returns_inputs_gemma4_fake", checks, tmp_path):
        text = script.read_text()
        assert not SUITE_IMPORT.search(text), script.name
        assert "SystemExit" not in text, script.name
        compile(text, script.name, "exec")
        header = text.split("from __future__")[0]
        assert "spec 'rope_returns_inputs_gemma4_fake'" in header
        assert f"torch {torch.__version__}" in header
        assert "seed fused-QKV model" in header
        preamble = text.split("\nimport torch\n")[0]
        assert 'os.environ["TORCHINDUCTOR_FORCE_DISABLE_CACHES"] = "1"' in preamble
        assert "torch.ops.load_library(" in text
        assert "qkv.split([4096, 1024, 1024], -1)[0]" in text


@needs_kernels
def test_gemma4_fake_scripts_reproduce_the_stride_bug(tmp_path):
    fake, inductor = _run(
        *_zoo_scripts("rope_returns_inputs_gemma4_fake", ("fake", "compiled"), tmp_path),
        cwd=tmp_path,
    )
    assert fake.returncode == 1, _explain(fake)
    assert (
        "[metadata] out[0].stride()=(4096, 1) in the fake, but the real kernel gives (6144, 1)"
        in fake.stdout
    )
    assert "out[0] is the input 'query' in the real kernel, but is a fresh tensor" in fake.stdout
    assert inductor.returncode == 1, _explain(inductor)
    assert "[compiled] the program compiled by inductor failed where eager ran" in inductor.stdout
    assert "stride 6144==4096" in inductor.stdout


@needs_kernels
def test_mirrored_fake_scripts_agree(tmp_path):
    results = _run(
        *_zoo_scripts("rope_returns_inputs_mirrored_fake", ("fake", "compiled"), tmp_path),
        cwd=tmp_path,
    )
    for result in results:
        assert result.returncode == 0, _explain(result)
        assert "OK: " in result.stdout


@needs_kernels
def test_schema_script_names_the_write_past_the_slice(tmp_path):
    [script] = _zoo_scripts("rope_overrun", ("schema",), tmp_path)
    [reference_spec] = [s for s in rope.SPECS if s.name == "rotary_embedding_functional"]
    with reference_spec.installed():
        reference = write_repro(
            reference_spec, "reference", [fused_qkv_seed_case()], 0, False, tmp_path / "ref.py"
        )
    schema, passing = _run(script, reference, cwd=tmp_path)
    assert schema.returncode == 1, _explain(schema)
    assert "outside every argument's view" in schema.stdout
    assert "of buffer 'qkv'" in schema.stdout
    assert passing.returncode == 0, _explain(passing)
    assert "within 2 ULP of the float64 reference" in passing.stdout


def test_a_triton_spec_script_registers_its_op_and_compiles_the_default_program(tmp_path):
    """A Triton op is registered by a call, not on import; and the default
    program reads the schema through a helper Dynamo must treat as a constant."""
    from torch_conformance.oracles.strategies.sampling import sample
    from torch_conformance.suites.catalog import builtin_specs

    spec = next(s for s in builtin_specs() if s.name == "rms_norm_triton")
    with spec.installed():
        case = sample(spec.cases, 1)[0]
        script = write_repro(spec, "compiled", [case], 0, False, tmp_path / "repro.py")
    text = script.read_text()
    assert 'import_module("torch_conformance.families.norm.triton_ops").register_triton()' in text
    assert "@torch._dynamo.assume_constant_result\ndef positional_names" in text
    [result] = _run(script, cwd=tmp_path)
    assert result.returncode == 0, _explain(result)


INSTALLED = """
import torch

library = torch.library.Library("conformance_installed", "FRAGMENT")
library.define("halves(Tensor x) -> Tensor")
library.impl("halves", lambda x: x / 2, "CPU")
library.impl("halves", lambda x: x.new_empty(x.shape[0] // 2), "Meta")  # a wrong fake
"""


def test_a_script_imports_the_installed_package_that_registers_the_op(tmp_path, monkeypatch):
    """An op a package in site-packages registers (with Library.impl, as
    torchao does): the script imports the package's module by name and runs."""
    from torch_conformance.oracles.repro import source

    packages = tmp_path / "site-packages"
    (packages / "installed_ops").mkdir(parents=True)
    (packages / "installed_ops" / "__init__.py").write_text(INSTALLED)
    monkeypatch.syspath_prepend(str(packages))
    monkeypatch.setattr(source, "_ROOTS", (*source._ROOTS, packages.resolve()))
    __import__("installed_ops")
    spec = Spec("halves", "conformance_installed::halves", st.just(_rows(4)), None)
    script = tmp_path / "repro.py"
    script.write_text(render_repro(spec, "fake", [_rows(4)], 0, False))
    assert 'importlib.import_module("installed_ops")' in script.read_text()
    done = subprocess.run(
        [sys.executable, script],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(packages)},
        cwd=tmp_path,
    )
    assert done.returncode == 1, done.stdout + done.stderr  # the wrong fake: the bug is there
    assert "[metadata]" in done.stdout
