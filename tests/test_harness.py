"""No vacuous pass: a compiled run that proves nothing is reported, never passed."""

from __future__ import annotations

import dataclasses

import torch

from oracles.checks import check_inductor
from oracles.compile import CompiledRun
from oracles.rope_cases import fused_qkv_seed_case
from suites import rope
from tests.zoo_helpers import needs_kernels

SEED = fused_qkv_seed_case()


def _spec(name: str):
    [spec] = [s for s in rope.SPECS if s.name == name]
    return spec


def test_nothing_compiled_is_a_harness_failure():
    run = CompiledRun(lambda x: None, None)
    run(torch.ones(2))
    assert run.vacuity() == "nothing was compiled: Dynamo handed no graph to Inductor"


def test_a_recompile_on_the_same_inputs_is_a_harness_failure():
    calls = []

    def program(x):
        calls.append(None)  # Dynamo guards on the list's length: the next call recompiles
        return x * len(calls)

    run = CompiledRun(program, None)
    run(torch.ones(2))
    assert run.vacuity() == "Dynamo recompiled on the second call with the same inputs"


def test_a_real_compiled_run_is_not_vacuous():
    run = CompiledRun(lambda x: x.sin(), None)
    run(torch.ones(2))
    assert run.vacuity() is None and run.compiles == 1


@needs_kernels
def test_a_program_that_never_calls_the_op_is_a_harness_failure():
    spec = dataclasses.replace(
        _spec("rotary_embedding"), program=lambda op, **args: args["query"] * 1
    )
    spec.prepare()
    [finding] = check_inductor(spec, SEED)
    assert finding.verdict == "harness"
    assert "conformance.rotary_embedding.default is not in the graph" in finding.message


@needs_kernels
def test_a_graph_break_fails_instead_of_falling_back_to_eager():
    def breaks(op, **args):
        out = rope.consume_rotated(op, **args)
        torch._dynamo.graph_break()
        return out

    spec = dataclasses.replace(_spec("rotary_embedding"), program=breaks)
    spec.prepare()
    [finding] = check_inductor(spec, SEED)
    assert finding.verdict == "inductor"
    assert "graph_break" in finding.message or "Unsupported" in finding.message


@needs_kernels
def test_catalog_specs_pass_on_the_seed_case():
    for spec in rope.SPECS:
        if spec.prepare:
            spec.prepare()
        assert check_inductor(spec, SEED) == [], spec.name


def _miscompiled(op, **args):
    """A compiler fault stand-in: the compiled program scales the result by 1%."""
    out = rope.consume_rotated(op, **args)
    return out * 1.01 if torch.compiler.is_compiling() else out


def test_pure_pytorch_form_is_judged_by_its_ulp_budget():
    spec = _spec("rotary_embedding_torch")
    assert not spec.bit_exact
    [finding] = check_inductor(dataclasses.replace(spec, program=_miscompiled), SEED)
    assert "ULP from the float64 reference in inductor" in finding.message
    assert "[ULP budget 2]" in finding.message


@needs_kernels
def test_opaque_ops_are_judged_bit_for_bit():
    spec = _spec("rotary_embedding_functional")
    spec.prepare()
    [finding] = check_inductor(dataclasses.replace(spec, program=_miscompiled), SEED)
    assert "differ bit for bit between inductor and eager" in finding.message
