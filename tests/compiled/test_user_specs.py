"""A kernel team's first hour: their own specs load, every argument works in
every check, and what cannot work is refused or explained."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.zoo_helpers import needs_kernels, zoo_spec
from torch_conformance.families.rope import specs as rope
from torch_conformance.families.rope.cases import fused_qkv_seed_case, rope_batches, rope_cases
from torch_conformance.oracles.checks import CHECKS
from torch_conformance.oracles.checks.compiled import check_compiled
from torch_conformance.oracles.checks.domain_edges import check_domain_edges
from torch_conformance.oracles.core.buffers import DEFAULT, Buffer, Case, CaseError, View
from torch_conformance.oracles.core.expectation import Expectation, exact
from torch_conformance.oracles.core.findings import CheckFailure
from torch_conformance.oracles.core.kernel_domain import Domain, edge_cases
from torch_conformance.oracles.core.meter import SPENT
from torch_conformance.oracles.core.specification import Spec, SpecError
from torch_conformance.oracles.repro.inliner import Inliner
from torch_conformance.oracles.repro.loading import (
    OpLoading,
    _import_module_lines,
    fake_registration,
)
from torch_conformance.oracles.repro.script import write_repro
from torch_conformance.oracles.runner.loading import load_specs
from torch_conformance.oracles.runner.property import run_property
from torch_conformance.oracles.strategies.strided import strided_layouts

USER_SPECS = Path(__file__).parents[1] / "user_specs" / "argument_specs.py"
QUICK = settings(max_examples=20, database=None, derandomize=True)


def _user_spec(name: str) -> Spec:
    [spec] = [s for s in load_specs(str(USER_SPECS)) if s.name == name]
    return spec


@pytest.mark.parametrize("check", sorted(CHECKS))
def test_list_tuple_none_dtype_str_and_nan_arguments_pass_every_check(check):
    # The spec module imports its ops from the sibling argument_ops.py, and
    # its program reads a module global under compile.
    run_property(_user_spec("pick"), check, QUICK)


@pytest.mark.parametrize("check", sorted(CHECKS))
def test_an_optional_tensor_drawn_as_none_passes_every_check(check):
    run_property(_user_spec("with_bias"), check, QUICK)


def test_a_program_using_its_modules_globals_gets_a_real_inductor_verdict():
    spec = _user_spec("pick")
    case = Case(
        {"x": Buffer((2, 6), torch.float32)},
        {
            "x": View("x"),
            "sections": [2, 4],
            "order": (1, 0),
            "dtype": torch.bfloat16,
            "fill": float("nan"),
            "where": "last",
            "flag": True,
        },
    )
    with spec.installed():
        assert check_compiled(spec, case) == []
        broken = Spec(**{**spec.__dict__, "program": lambda op, **a: op(**a) + 1.0})
        [finding] = check_compiled(broken, case)  # a real verdict, not a harness failure
    assert finding.verdict == "values"


def _fill_out_case(column: bool) -> Case:
    view = View("out", (("select", 1, 0),)) if column else View("out", (("select", 0, 0),))
    return Case(
        {
            "out": Buffer((4, 3), torch.float32),
            "x": Buffer((3 if not column else 4,), torch.float32),
        },
        {"out": view, "x": View("x")},
    )


def test_an_argument_named_out_is_explained():
    load_specs(str(USER_SPECS))  # registers user_args::fill_out
    op = torch.ops.user_args.fill_out.default
    spec = Spec("fill_out", op, st.nothing(), None)
    # Called positionally, as the default program does, it compiles; the
    # keyword limitation is named without blocking.
    [note] = check_compiled(spec, _fill_out_case(column=True))
    assert note.verdict == "out argument" and not note.blocking
    assert "Dynamo reads a keyword argument named 'out' as an out= call" in note.message
    assert "rename the argument (e.g. 'output'), have callers pass it positionally" in note.message
    assert check_compiled(spec, _fill_out_case(column=False)) == []  # a contiguous out
    # A program passing out= by keyword fails, and the Finding says why.
    keyword = Spec("fill_out", op, st.nothing(), None, program=lambda op, **args: op(**args))
    [finding] = check_compiled(keyword, _fill_out_case(column=True))
    assert finding.blocking and finding.verdict == "out argument"
    assert "the program passes out= by keyword" in finding.message


def test_unknown_view_operations_and_values_are_refused_naming_them():
    with pytest.raises(CaseError, match=r"View of buffer 'x': unknown view operation \('slect'"):
        View("x", (("slect", 0, 1),))
    with pytest.raises(CaseError, match=r"\('narrow', 0, 1\) takes 3 parameter\(s\), got 2"):
        View("x", (("narrow", 0, 1),))
    with pytest.raises(CaseError, match="Case argument 'w': a Tensor is not a supported"):
        Case({}, {"w": torch.ones(2)})
    with pytest.raises(CaseError, match="a View of buffer 'y', which the Case does not allocate"):
        Case({"x": Buffer((2,), torch.float32)}, {"w": View("y")})


def test_a_strategy_drawing_a_bad_case_is_a_usage_error_naming_the_spec():
    bad = st.just(None).map(lambda _: Case({}, {"w": object()}))
    spec = Spec("bad_case", abs, bad, None)
    with pytest.raises(SpecError, match="spec 'bad_case': Case argument 'w': a object"):
        run_property(spec, "reference", QUICK)


def test_cases_passing_arguments_the_op_does_not_take_are_refused():
    load_specs(str(USER_SPECS))
    case = _fill_out_case(column=False)
    case = Case(case.buffers, {**case.args, "alpha": 2.0})
    spec = Spec("fill_out", "user_args::fill_out", st.just(case), None)
    with pytest.raises(SpecError, match=r"its Cases pass \['alpha'\], which .* does not take"):
        run_property(spec, "reference", QUICK)


def test_the_views_real_code_makes():
    case = Case(
        {"b": Buffer((4, 6), torch.float32)},
        {
            "stepped": View("b", (("slice", 1, 1, None, 2),)),
            "row": View("b", (("select", 0, 2), ("unsqueeze", 0))),
            "t": View("b", (("transpose", 0, 1), ("narrow", 0, 1, 2))),
            "squeezed": View("b", (("narrow", 0, 0, 1), ("squeeze", 0))),
            "strided": View("b", (("as_strided", (2, 2), (1, 6), 3),)),
        },
    )
    args = case.bind(case.allocate())
    assert args["stepped"].stride() == (6, 2) and args["stepped"].storage_offset() == 1
    assert args["row"].shape == (1, 6) and args["row"].storage_offset() == 12
    assert args["t"].stride() == (1, 6) and args["t"].storage_offset() == 1
    assert args["squeezed"].shape == (6,)
    assert args["strided"].stride() == (1, 6) and args["strided"].storage_offset() == 3


def test_a_spec_file_imports_its_sibling_module(tmp_path):
    (tmp_path / "sibling_ops.py").write_text("NAME = 'from the sibling'\n")
    path = tmp_path / "sibling_specs.py"
    path.write_text(
        textwrap.dedent(
            """
            import sibling_ops
            from hypothesis import strategies as st
            from torch_conformance.spec import Spec
            SPECS = [Spec(name="s", op=abs, cases=st.nothing(), reference=None,
                          families=(sibling_ops.NAME.replace(" ", "_"),))]
            """
        )
    )
    [spec] = load_specs(str(path))
    assert spec.families == ("from_the_sibling",)


DOMAIN = Domain(
    dtypes=(torch.bfloat16, torch.float16),
    contiguous=("positions", "cos_sin_cache"),
    ranks={"query": (2, 3)},
    rule=lambda args: (
        "3-D needs rotary_dim == head_size"
        if args["query"].dim() == 3 and args["cos_sin_cache"].shape[1] != args["head_size"]
        else None
    ),
)


@settings(max_examples=100, database=None)
@given(case=rope_cases(domain=DOMAIN), batch=rope_batches(3, domain=DOMAIN))
def test_a_declared_domain_is_never_left(case, batch):
    for drawn in (case, *batch):
        assert DOMAIN.violations(drawn) == []


def test_cases_outside_the_domain_never_reach_the_op():
    seen = []

    def op(positions, query, key, head_size, cos_sin_cache, is_neox):
        seen.append(query.dtype)

    spec = Spec("in_domain", op, rope_cases(), None, domain=Domain(dtypes=(torch.float16,)))
    run_property(spec, "reference", QUICK)
    assert seen and set(seen) == {torch.float16}


def test_edge_cases_break_one_rule_each():
    case = fused_qkv_seed_case()
    edges = dict(edge_cases(DOMAIN, case))
    assert set(edges) == {
        "positions not contiguous",
        "cos_sin_cache not contiguous",
        "floating arguments in torch.float32",
    }
    for rule, edge in edges.items():
        assert DOMAIN.violations(edge), rule
    positions = edges["positions not contiguous"].bind(edges["positions not contiguous"].allocate())
    assert positions["positions"].stride()[-1] == 2


def _copy(x: torch.Tensor) -> torch.Tensor:
    return x.clone()


def test_a_spec_without_batches_compiles_once_per_batch():
    def rows(count: int) -> Case:
        return Case(
            {"buffer": Buffer((count + 2, 8), torch.float32)},
            {"x": View("buffer", (("narrow", 0, 1, count),))},
            seed=count,
        )

    spec = Spec("rows", _copy, st.integers(2, 40).map(rows), None)
    before = SPENT.compiles
    run_property(spec, "compiled", settings(max_examples=40, database=None), batch_size=10)
    assert SPENT.compiles - before <= 4  # 40 Cases, 4 batches


def _shifted_reference(x, by=1, wrap=False):
    if wrap:
        return Expectation(outputs=(exact(x.roll(by, -1)),))
    out = torch.zeros_like(x, dtype=torch.float64)
    out[..., by:] = x[..., : x.shape[-1] - by]
    return Expectation(outputs=(exact(out),))


@st.composite
def _shifted_cases(draw):
    x = draw(strided_layouts((draw(st.integers(1, 3)), 6)))
    return Case(
        {"x": Buffer(x.buffer_shape, torch.float32)},
        {
            "x": View("x", x.ops),
            "by": draw(st.sampled_from([DEFAULT, 0, 2, 5])),
            "wrap": draw(st.sampled_from([DEFAULT, True])),
        },
        seed=draw(st.integers(0, 2**32 - 1)),
    )


@pytest.mark.parametrize("check", sorted(CHECKS))
def test_defaulted_arguments_are_drawn_at_and_away_from_their_defaults(check):
    load_specs(str(USER_SPECS))  # registers user_args::shifted
    spec = Spec("shifted", "user_args::shifted", _shifted_cases(), _shifted_reference)
    run_property(spec, check, QUICK)
    case = Case({"x": Buffer((2, 6), torch.float32)}, {"x": View("x"), "by": DEFAULT})
    assert "by" not in case.bind(case.allocate())  # the op's own default applies


@needs_kernels
def test_the_domain_edge_report_says_refuses_right_or_silently_wrong():
    seed = fused_qkv_seed_case()
    wrong = zoo_spec("rope_contiguous_positions")
    with wrong.installed():
        [finding] = check_domain_edges(wrong, seed)
    assert not finding.blocking and finding.verdict == "domain edge"
    assert "accepts positions not contiguous and silently computes wrong values" in (
        finding.message
    )
    [right_spec] = [s for s in rope.SPECS if s.name == "rotary_embedding"]
    right = Spec(**{**right_spec.__dict__, "domain": Domain(contiguous=("positions",))})
    with right.installed():
        [finding] = check_domain_edges(right, seed)
    assert "accepts positions not contiguous and computes the reference's values" in (
        finding.message
    )

    def contiguous_only(positions, query, key, head_size, cos_sin_cache, is_neox):
        if not positions.is_contiguous():
            raise ValueError("positions must be contiguous")

    strict = Spec("strict", contiguous_only, st.nothing(), None, domain=right.domain)
    [finding] = check_domain_edges(strict, seed)
    assert "refuses positions not contiguous: ValueError: positions must be contiguous" in (
        finding.message
    )
    assert check_domain_edges(Spec("none", contiguous_only, st.nothing(), None), seed) == []


def test_a_script_of_a_closure_fake_imports_the_module_that_registered_it(tmp_path):
    """A registry's fakes made in a loop have no source of their own: the
    script imports the module that registered them, and runs from anywhere."""
    folder = Path(__file__).resolve().parents[1] / "user_specs"
    [spec] = load_specs(str(folder / "closure_specs.py"))
    with spec.installed():
        script = write_repro(spec, "fake", [spec.examples[0]], 0, False, tmp_path / "fake.py")
    text = script.read_text()
    assert "could not recover" not in text
    assert 'import_module("closure_ops")' in text
    environment = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    run = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, cwd=tmp_path,
        env=environment, timeout=300,
    )  # fmt: skip
    assert run.returncode == 0, run.stdout + run.stderr[-2000:]
    assert "OK" in run.stdout


def test_a_closure_fake_of_a_library_op_is_registered_by_importing_its_module():
    """With no Python module defining the op (a C++ library's), the fake made
    in a loop is registered again by importing the module that made it."""
    [spec] = load_specs(str(Path(__file__).resolve().parents[1] / "user_specs/closure_specs.py"))
    inliner = Inliner(set())
    lines = fake_registration(spec, inliner, OpLoading([], "", None, False))
    assert not inliner.problems
    assert "made inside a function" in " ".join(lines)
    assert lines[-1] == 'importlib.import_module("closure_ops")'


# A correct in-place op whose schema returns the arguments it writes, as a
# user wrote it: torch.compile cannot functionalize that schema.
RETURNS_WRITES = torch.library.Library("user_returns", "DEF")
RETURNS_WRITES.define("add_(Tensor(a!) x, Tensor(b!) y) -> (Tensor(a!), Tensor(b!))")


def _add_(x, y):
    y.add_(x)
    x.copy_(y)
    return x, y


RETURNS_WRITES.impl("add_", _add_, "CPU")
torch.library.register_fake("user_returns::add_", lambda x, y: (x, y), lib=RETURNS_WRITES)


@pytest.mark.parametrize("check", ["compiled", "programs"])
def test_a_schema_torch_compile_refuses_fails_once_unshrunk(check):
    cases = st.sampled_from([(3,), (2, 5), (2, 3, 4)]).map(
        lambda shape: Case(
            {"a": Buffer(shape, torch.float32), "b": Buffer(shape, torch.float32)},
            {"x": View("a"), "y": View("b")},
        )
    )
    example = Case(
        {"a": Buffer((3,), torch.float32), "b": Buffer((3,), torch.float32)},
        {"x": View("a"), "y": View("b")},
    )
    spec = Spec("returns_writes", "user_returns::add_", cases, None, examples=(example,))
    with pytest.raises(CheckFailure) as info:
        run_property(spec, check, settings.get_profile("ci"))
    [failure] = info.value.failures
    # Every Case fails alike: no advice to rerun for a generated Case instead.
    assert "--skip-examples" not in failure.heading, failure.heading
    [finding] = [f for f in failure.findings if f.blocking]
    assert finding.verdict == "compiled"
    assert "cannot compile user_returns.add_.default on any Case" in finding.message
    assert "return () and let callers read the arguments it writes" in finding.message
    assert "not shrunk" in finding.message


def test_a_script_importing_a_module_of_the_users_that_imports_the_suite_names_no_checkout():
    """The installed suite is importable wherever the script runs: a script
    adds no folder of the suite's to ``sys.path``, only the user's module's own."""
    load_specs(str(Path(__file__).resolve().parents[1] / "user_specs" / "closure_specs.py"))
    lines = _import_module_lines(sys.modules["closure_specs"])
    checkout = str(Path(__file__).resolve().parents[2])
    folder = str(Path(__file__).resolve().parents[1] / "user_specs")
    assert lines[0] == f"sys.path.insert(0, {folder!r})".replace("'", '"')
    assert not any(checkout + '"' in line or "append" in line for line in lines), lines
