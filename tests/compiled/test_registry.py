"""The registry lint finds each of seed 001's fake bugs by name, is silent
on the catalog, and the fallback helper registers what Inductor would make
implicitly, once."""

from __future__ import annotations

import dataclasses
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import torch
from hypothesis import strategies as st

from tests.zoo_helpers import failure, needs_kernels, zoo_spec
from torch_conformance.oracles.core.buffers import Buffer, Case, View
from torch_conformance.oracles.core.schema import structure_problem
from torch_conformance.oracles.core.specification import Spec
from torch_conformance.oracles.lint.fallbacks import (
    DECOMPOSED,
    EXPLICIT_FALLBACK,
    IMPLICIT_FALLBACK,
    LOWERING,
    lowering_of,
    namespace_ops,
    register_fallbacks,
)
from torch_conformance.oracles.lint.lint import OpLint, lint, lint_op
from torch_conformance.suites import lint as cli
from torch_conformance.suites.catalog import builtin_specs, specs_of

CHECKOUT = Path(__file__).resolve().parents[2]


def _linted(namespace: str) -> dict[str, OpLint]:
    specs, _ = cli.prepared_specs([], namespaces=[namespace])
    return {op.op: op for op in lint([namespace], specs)[namespace]}


@needs_kernels
def test_the_lint_is_silent_on_the_catalog():
    ops = _linted("conformance")
    names = {s.op for s in builtin_specs() if isinstance(s.op, str)}
    assert names <= set(ops), "every catalog op is linted"
    for op in ops.values():
        assert not op.errors, op
        assert "against the kernel" in op.checked, op


ZOO = [
    (
        "add_rms_norm_returns_none",
        "fake-returns",
        "the schema declares -> (Tensor, Tensor) but the fake returns None",
    ),
    (
        "add_rms_norm_returns_one",
        "fake-returns",
        "the schema declares -> (Tensor, Tensor) but the fake returns a Tensor",
    ),
    (
        "add_rms_norm_stats_returns_three",
        "fake-returns",
        "declares -> (Tensor, Tensor, Tensor, Tensor) but the fake returns a tuple of 3",
    ),
    (
        "all_gather_world_size",
        "fake-vs-kernel",
        "out[0].shape=(16, 4096) in the fake, but the real kernel gives (48, 4096)",
    ),
    (
        "fused_add_rms_norm_fresh_residual",
        "fake-alias",
        "declares out[1] aliases the input 'residual', but out[1] of the fake is a fresh tensor",
    ),
    (
        "fused_add_rms_norm_fresh_residual",
        "uncompilable",
        "torch.compile cannot functionalize this mutating op (its returns alias",
    ),
    ("rotary_embedding_no_fake", "no-fake", "no fake (no Python fake, Meta kernel"),
]


@needs_kernels
@pytest.mark.parametrize("op,code,message", ZOO, ids=[f"{op}-{code}" for op, code, _ in ZOO])
def test_the_lint_names_every_registry_zoo_case(op, code, message):
    [problem] = [
        p for p in _linted("conformance_zoo")[f"conformance_zoo::{op}"].errors if p.verdict == code
    ]
    assert message in problem.message


@needs_kernels
@pytest.mark.parametrize(
    "name,message",
    [
        ("add_rms_norm_returns_none", "declares -> (Tensor, Tensor) but the fake returns None"),
        ("add_rms_norm_returns_one", "declares -> (Tensor, Tensor) but the fake returns a Tensor"),
        (
            "add_rms_norm_stats_returns_three",
            "returns 4 output(s) (Tensor, Tensor, Tensor, Tensor) but the fake returns 3 output(s)",
        ),
        ("all_gather_world_size", "in the fake, but the real kernel gives"),
        (
            "fused_add_rms_norm_fresh_residual",
            "out[1] is the input 'residual' in the real kernel, but is a fresh tensor in the fake",
        ),
    ],
)
def test_the_fake_check_finds_every_registry_zoo_case(name, message):
    assert message in failure(zoo_spec(name), "fake")


@needs_kernels
def test_the_world_size_fake_is_wrong_at_every_shape_hypothesis_draws():
    # Without the example Case: the search finds it on its own.
    spec = dataclasses.replace(zoo_spec("all_gather_world_size"), examples=())
    assert "in the fake, but the real kernel gives" in failure(spec, "fake")


# A user's own namespace of Python ops, fakes and all.
LIB = torch.library.Library("lint_user", "DEF")
LIB.define("pair(Tensor x) -> Tensor[]")
LIB.define("picky(Tensor x, int n) -> Tensor")
LIB.define("opaque(Tensor x, Generator? g) -> Tensor")
LIB.define("scale_(Tensor(a!) x) -> ()")
# A quantized matmul's output dtype: the schema type reads int, the real type ScalarType.
LIB.define("matmul_to(Tensor x, ScalarType out_dtype) -> Tensor")
for _name in ("pair", "picky", "opaque"):
    LIB.impl(_name, lambda x, *rest: x.clone(), "CPU")
# A fake written for an older schema: one parameter short.
LIB.define("wide(Tensor x, int a, int b) -> Tensor")
LIB.impl("wide", lambda x, a, b: x.clone(), "CPU")
torch.library.register_fake("lint_user::wide", lambda x, a: x.new_empty(x.shape), lib=LIB)
# A Meta kernel for 4-D inputs only: FakeTensor logs a traceback each time it raises.
LIB.define("only_4d(Tensor x) -> Tensor")
LIB.impl("only_4d", lambda x: x.clone(), "CPU")
LIB.impl("only_4d", lambda x: _only_4d(x), "Meta")
# A schema with no kernel here (a library's CUDA-only op on a CPU machine).
LIB.define("schema_only(Tensor x) -> (Tensor, Tensor)")
torch.library.register_fake("lint_user::schema_only", lambda x: x.new_empty(x.shape), lib=LIB)
LIB.define("two_bugs(Tensor x) -> Tensor")
LIB.impl("two_bugs", lambda x: x.clone(), "CPU")
# Wrong in two ways: None for 2-D inputs, a transposed shape for others.
torch.library.register_fake(
    "lint_user::two_bugs", lambda x: None if x.dim() == 2 else x.new_empty(x.shape[::-1]), lib=LIB
)
LIB.impl("matmul_to", lambda x, out_dtype: (x @ x.mT).to(out_dtype), "CPU")
torch.library.register_fake(
    "lint_user::matmul_to",
    lambda x, out_dtype: x.new_empty(x.shape[:-1] * 2, dtype=out_dtype),
    lib=LIB,
)
LIB.impl("scale_", lambda x: x.mul_(2), "CPU")
torch.library.register_fake("lint_user::pair", lambda x: x.new_empty(x.shape), lib=LIB)


def _only_4d(x):
    if x.dim() != 4:
        raise RuntimeError("only 4-D inputs")
    return x.new_empty(x.shape)


def _picky(x, n):
    raise ValueError("only the shapes my model uses")


torch.library.register_fake("lint_user::picky", _picky, lib=LIB)
LIB.define("stub(Tensor weight) -> Tensor")
LIB.impl("stub", lambda weight: weight.clone(), "CPU")


def _stub(weight):
    # A stub fake with a bug of its own: a 2-D weight is what the op takes.
    rows, columns = weight.shape
    return weight.new_empty(rows, columns.half())


torch.library.register_fake("lint_user::stub", _stub, lib=LIB)
torch.library.register_fake("lint_user::opaque", lambda x, g: x.new_empty(x.shape), lib=LIB)


def test_a_tensor_for_a_list_and_unchecked_fakes_are_told_apart():
    found = {op.op: op for op in lint(["lint_user"])["lint_user"]}
    [pair] = found["lint_user::pair"].errors
    assert pair.verdict == "fake-returns"
    assert "declares -> Tensor[] but the fake returns a Tensor" in pair.message
    picky = found["lint_user::picky"]
    assert not picky.errors and picky.checked == "nothing"
    [note] = [p for p in picky.problems if p.verdict == "unchecked"]
    assert (
        "the fake raised on every one (ValueError: only the shapes my model uses)" in note.message
    )
    # Its own code failing, not a refusal of its input: said apart, not "write a spec".
    [broken] = [p for p in found["lint_user::stub"].problems if p.verdict != "implicit-fallback"]
    assert broken.verdict == "fake-error" and not broken.blocking
    assert "weight=[4, 6]: AttributeError: 'int' object has no attribute 'half'" in broken.message
    assert "is a bug in it; fix the fake" in broken.message
    [note] = [p for p in found["lint_user::opaque"].problems if p.verdict == "unchecked"]
    assert "the lint cannot derive an argument of type Generator" in note.message
    [short] = found["lint_user::wide"].errors
    assert short.verdict == "fake-signature"
    assert "cannot take the 3 argument(s) the schema passes (x, a, b)" in short.message
    # A fake that raises for the inputs it is given is not one that cannot take them.
    assert not any(p.verdict == "fake-signature" for p in picky.problems)
    # A ScalarType argument is given a dtype, not the int its schema type reads.
    matmul = found["lint_user::matmul_to"]
    assert matmul.checked == "schema-derived inputs"
    assert [p.verdict for p in matmul.problems] == ["implicit-fallback"]
    # A mutating op that returns nothing gets torch's trivial fake.
    scale = found["lint_user::scale_"]
    assert not scale.errors and "trivial fake" in scale.fake


def test_structure_problems_name_what_to_return():
    [op] = [o for o in namespace_ops("lint_user") if o._schema.name == "lint_user::scale_"]
    assert structure_problem(op, None) is None
    message = structure_problem(op, torch.empty(1))
    assert message == "the schema declares -> () but the fake returns a Tensor: return None"


def test_fallbacks_are_registered_once_and_only_where_inductor_would_make_them():
    LIB.define("later(Tensor x) -> Tensor")
    LIB.impl("later", lambda x: x.clone(), "CPU")
    ops = {o._schema.name: o for o in namespace_ops("lint_user")}
    assert lowering_of(ops["lint_user::pair"]) == IMPLICIT_FALLBACK
    assert "implicit-fallback" in [p.verdict for p in lint_op(ops["lint_user::pair"]).problems]
    registered = register_fallbacks("lint_user")
    assert ops["lint_user::pair"] in registered
    assert lowering_of(ops["lint_user::pair"]) == EXPLICIT_FALLBACK
    assert register_fallbacks("lint_user") == []
    assert not [
        p for p in lint_op(ops["lint_user::pair"]).problems if p.verdict == "implicit-fallback"
    ]
    assert lowering_of(torch.ops.aten.add.Tensor) == LOWERING
    assert lowering_of(torch.ops.aten.matmul.default) == DECOMPOSED


@needs_kernels
def test_the_command_exits_1_on_the_zoo_and_writes_json(tmp_path):
    out = tmp_path / "lint.json"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "torch_conformance.suites.lint",
            "conformance",
            "conformance_zoo",
            f"--json={out}",
        ],
        cwd=CHECKOUT,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 1, done.stderr
    assert re.search(r"^conformance: \d+ op\(s\), 0 error\(s\)$", done.stdout, re.M)
    assert "error [fake-returns]" in done.stdout
    assert "would fall back to their kernels implicitly" in done.stdout
    report = json.loads(out.read_text())
    assert {op["op"] for op in report["namespaces"]["conformance_zoo"]} >= {
        f"conformance_zoo::{op}" for op, _, _ in ZOO
    }
    done = subprocess.run(
        [sys.executable, "-m", "torch_conformance.suites.lint", "conformance"],
        cwd=CHECKOUT,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout


@needs_kernels
def test_the_gate_lints_the_namespaces_of_its_specs(tmp_path):
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "torch_conformance/test_registry.py",
            "--specs=torch_conformance.suites.zoo",
            f"--repro-dir={tmp_path}",
            f"--report-json={tmp_path / 'report.json'}",
            "-p",
            "no:randomly",
        ],
        cwd=CHECKOUT,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 1
    assert "test_registry[conformance_zoo]" in done.stdout
    assert "conformance_zoo::add_rms_norm_returns_none: [fake-returns]" in done.stdout
    assert (
        "rerun: torch-conformance lint conformance_zoo --specs=torch_conformance.suites.zoo"
        in done.stdout
    )
    # The JSON report holds the blocking problems, not only the notes.
    [result] = json.loads((tmp_path / "report.json").read_text())["results"]
    found = {(f["verdict"], f["blocking"], f["case"]) for f in result["findings"]}
    assert ("fake-returns", True, "conformance_zoo::add_rms_norm_returns_none") in found
    assert ("implicit-fallback", False) in {(v, b) for v, b, _ in found}


def test_zoo_specs_come_from_every_family():
    assert {"norm", "collective", "rope", "mrope"} <= {
        f for s in specs_of("zoo") for f in s.families
    }


def test_the_lint_goes_on_after_the_first_problem():
    """The schema-derived inputs find the 2-D bug; the spec's 3-D Case still
    runs and finds the other."""
    [op] = [o for o in namespace_ops("lint_user") if o._schema.name == "lint_user::two_bugs"]
    case = Case({"x": Buffer((2, 3, 4), torch.float32)}, {"x": View("x")})
    spec = Spec("two_bugs", "lint_user::two_bugs", st.just(case), None, examples=(case,))
    found = lint_op(op, [spec])
    assert [p.verdict for p in found.errors] == ["fake-returns", "fake-vs-kernel"]
    assert "shape" in found.errors[1].message


def test_the_lint_loads_only_the_namespaces_it_lints():
    specs, notes = cli.prepared_specs([], namespaces=["lint_user"])
    assert specs == [] and notes == []
    specs, _ = cli.prepared_specs([], namespaces=["conformance_zoo"])
    assert specs and {s.namespace for s in specs} == {"conformance_zoo"}


def test_ops_out_of_scope_stay_in_the_report_and_block_nothing(tmp_path, capsys):
    report = tmp_path / "lint.json"
    assert cli.main(["lint_user", f"--json={report}"]) == 1
    ops = json.loads(report.read_text())["namespaces"]["lint_user"]
    blocking = sorted(op["op"] for op in ops if any(p["blocking"] for p in op["problems"]))
    assert {"lint_user::pair", "lint_user::two_bugs", "lint_user::wide"} <= set(blocking)
    scope = tmp_path / "scope.txt"
    scope.write_text("# never traced\nlint_user::two_bugs = built once at start-up\n\n")
    argv = ["lint_user", f"--exclude-file={scope}", f"--json={report}"]
    argv += [f"--exclude={op}=weight prepacking" for op in blocking if op != "lint_user::two_bugs"]
    capsys.readouterr()
    assert cli.main(argv) == 0
    out = capsys.readouterr().out
    assert "out of scope: built once at start-up (its problems block nothing)" in out
    assert "note [fake-signature]" in out  # still listed, as a note
    ops = json.loads(report.read_text())["namespaces"]["lint_user"]
    assert {op["op"]: op["excluded"] for op in ops}["lint_user::pair"] == "weight prepacking"
    with pytest.raises(SystemExit):
        cli.main(["lint_user", "--exclude=lint_user::nothing=gone"])
    with pytest.raises(SystemExit):
        cli.main(["lint_user", "--exclude=lint_user::pair"])


def test_the_lint_is_quiet_about_the_inputs_it_discards(capfd):
    [op] = [o for o in namespace_ops("lint_user") if o._schema.name == "lint_user::only_4d"]
    capfd.readouterr()
    found = lint_op(op)
    assert capfd.readouterr().err == ""
    assert found.checked == "schema-derived inputs" and not found.errors
    assert found.discarded[0] == "x=[4, 6]: RuntimeError: only 4-D inputs"
    assert len(found.discarded) == 3  # ranks 2, 3 and 1 refused, 4 taken
    cli.main(["lint_user", "--verbose", "--exclude-file=/dev/null"])
    assert "tried and discarded: x=[4, 6]: RuntimeError: only 4-D inputs" in capfd.readouterr().out


def test_without_a_kernel_the_fake_or_the_schema_is_blamed():
    [op] = [o for o in namespace_ops("lint_user") if o._schema.name == "lint_user::schema_only"]
    [problem] = lint_op(op).errors
    assert problem.verdict == "fake-returns" and "as the kernel does" not in problem.message
    assert "no kernel is registered here, so the fake or the schema is wrong" in problem.message
    [op] = [o for o in namespace_ops("lint_user") if o._schema.name == "lint_user::pair"]
    assert "as the kernel does" in lint_op(op).errors[0].message


def test_import_can_call_the_function_that_registers_a_librarys_ops(monkeypatch, capsys):
    monkeypatch.syspath_prepend(str(CHECKOUT / "tests" / "user_specs"))
    # Imported, not called: no op is registered, and a lint of none fails.
    assert cli.main(["called_user", "--import", "called_ops"]) == 1
    assert "error: no op of 'called_user' was linted" in capsys.readouterr().out
    assert cli.main(["called_user", "--import", "called_ops:register"]) == 0
    assert "called_user::twice: a Python fake" in capsys.readouterr().out


def test_import_finds_a_module_in_the_current_directory():
    """As `python -m` finds modules: run from the library's folder, with the
    suite's checkout on PYTHONPATH."""
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "torch_conformance.suites.lint",
            "called_user",
            "--import",
            "called_ops:register",
        ],
        cwd=CHECKOUT / "tests" / "user_specs",
        env={**os.environ, "PYTHONPATH": str(CHECKOUT)},
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "called_user::twice: a Python fake" in done.stdout


def test_a_kernel_registered_for_a_name_no_schema_defines_is_no_op():
    """torchao on torch 2.14 registers kernels for ops whose library (and
    schema) failed to load: the lint passes over them, not dies on them."""
    library = torch.library.Library("lint_undefined", "IMPL")
    library.impl("no_schema", lambda x: x, "CPU")
    assert "lint_undefined::no_schema" in torch._C._dispatch_get_all_op_names()
    assert namespace_ops("lint_undefined") == []
