"""No vacuous pass: a compiled run that proves nothing is reported, never passed."""

from __future__ import annotations

import dataclasses

import pytest
import torch

from tests.zoo_helpers import needs_kernels
from torch_conformance.families.rope import specs as rope
from torch_conformance.families.rope.cases import fused_qkv_seed_case
from torch_conformance.oracles.checks.compiled import check_compiled
from torch_conformance.oracles.core.specification import Unavailable
from torch_conformance.oracles.modes.compile_settings import RECOMPILE_LIMIT
from torch_conformance.oracles.modes.compiled import INDUCTOR
from torch_conformance.oracles.modes.compiled_program import CompiledProgram

SEED = fused_qkv_seed_case()


def _spec(name: str):
    [spec] = [s for s in rope.SPECS if s.name == name]
    return spec


def _vacuity(program, tmp_path, *inputs) -> str | None:
    compiled = CompiledProgram(program, None, tmp_path, INDUCTOR)
    _, evidence = compiled(*inputs)
    return compiled.vacuity(evidence)


def test_nothing_compiled_is_a_harness_failure(tmp_path):
    vacuity = _vacuity(lambda x: None, tmp_path, torch.ones(2))
    assert vacuity == "nothing was compiled: Dynamo handed no graph to inductor"


def test_a_recompile_on_the_same_inputs_is_a_harness_failure(tmp_path):
    calls = []

    def program(x):
        calls.append(None)  # Dynamo guards on the list's length: the next call recompiles
        return x * len(calls)

    vacuity = _vacuity(program, tmp_path, torch.ones(2))
    assert vacuity == "Dynamo recompiled on the second call with the same inputs"


def test_a_real_compiled_run_is_not_vacuous(tmp_path):
    assert _vacuity(lambda x: x.sin(), tmp_path, torch.ones(2)) is None


def test_one_compile_serves_every_size(tmp_path):
    program = lambda x, n: x.narrow(0, 0, n).sin()  # noqa: E731
    compiled = CompiledProgram(program, None, tmp_path, INDUCTOR, dynamic=True)
    for size in range(2, 12):
        _, evidence = compiled(torch.ones(size + 3), size)
        assert compiled.vacuity(evidence) is None
    assert compiled.compiles == 1


def test_the_recompile_limit_fails_loudly_instead_of_running_eagerly(tmp_path):
    compiled = CompiledProgram(lambda x: x.sin(), None, tmp_path, INDUCTOR)
    with pytest.raises(Exception, match="recompile_limit"):
        for size in range(2, 2 + RECOMPILE_LIMIT + 2):
            compiled(torch.ones(size))
    assert compiled.compiles == RECOMPILE_LIMIT


def test_eager_fallback_is_a_harness_failure(tmp_path):
    compiled = CompiledProgram(lambda x: x.sin(), None, tmp_path, INDUCTOR)
    compiled(torch.ones(2))
    with torch.compiler.set_stance("force_eager"):
        _, evidence = compiled(torch.ones(2))
    assert compiled.vacuity(evidence) == (
        "no graph compiled by inductor ran: Dynamo ran the program eagerly"
    )


@needs_kernels
def test_a_program_that_never_calls_the_op_is_a_harness_failure():
    spec = dataclasses.replace(
        _spec("rotary_embedding"), program=lambda op, **args: args["query"] * 1
    )
    spec.prepare()
    [finding] = check_compiled(spec, SEED)
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
    [finding] = check_compiled(spec, SEED)
    assert finding.verdict == "compiled"
    assert "graph_break" in finding.message or "Unsupported" in finding.message


@needs_kernels
def test_catalog_specs_pass_on_the_seed_case():
    for spec in rope.SPECS:
        try:
            if spec.prepare:
                spec.prepare()
        except Unavailable:  # native Triton without a GPU
            continue
        assert check_compiled(spec, SEED) == [], spec.name


def _miscompiled(op, **args):
    """A compiler fault stand-in: the compiled program scales the result by 1%."""
    out = rope.consume_rotated(op, **args)
    return out * 1.01 if torch.compiler.is_compiling() else out


def test_pure_pytorch_form_is_judged_by_its_ulp_budget():
    spec = _spec("rotary_embedding_torch")
    assert not spec.bit_exact
    [finding] = check_compiled(dataclasses.replace(spec, program=_miscompiled), SEED)
    assert "ULP from the float64 reference in inductor" in finding.message
    assert "[ULP budget 2]" in finding.message


@needs_kernels
def test_opaque_ops_are_judged_bit_for_bit():
    spec = _spec("rotary_embedding_functional")
    spec.prepare()
    [finding] = check_compiled(dataclasses.replace(spec, program=_miscompiled), SEED)
    assert "differ bit for bit between inductor and eager" in finding.message


def test_a_compile_under_pytest_builds_no_trace_records(tmp_path):
    # pytest hands its log handlers to every logger that does not propagate;
    # torch builds a trace record (guard text, stacks) for each guard while
    # its trace logger has a handler: a tenth of every compile. Its own lazy
    # handler removes itself on the first record.
    from torch._logging._internal import trace_log

    assert _vacuity(lambda x, n: x.narrow(0, 0, n) * 2, tmp_path, torch.ones(5), 3) is None
    assert trace_log.handlers == []
