"""Each Mode runs what it claims: its backend and Inductor config are in
force when it compiles, and what they change shows in the generated code or
in the verdicts."""

from __future__ import annotations

import os

import pytest
import torch
import torch._inductor.config as inductor_config
from torch._inductor.utils import run_and_get_code

from tests.zoo_helpers import needs_kernels, zoo_spec
from torch_conformance.families.rope import specs as rope
from torch_conformance.families.rope.cases import fused_qkv_seed_case
from torch_conformance.oracles.checks import CHECKS
from torch_conformance.oracles.checks.compiled import check_compiled
from torch_conformance.oracles.core.buffers import Buffer, Case, View
from torch_conformance.oracles.core.signature import batch_signature
from torch_conformance.oracles.core.specification import Spec
from torch_conformance.oracles.modes import compiled_program as compile_module
from torch_conformance.oracles.modes import triton_cpu
from torch_conformance.oracles.modes.cache import use_cache_root
from torch_conformance.oracles.modes.compiled import COMPILED, INDUCTOR, STAGES
from torch_conformance.oracles.strategies.sampling import sample

SEED = fused_qkv_seed_case()


@pytest.fixture(autouse=True)
def fresh_cache(tmp_path):
    """A fresh disk cache and fresh compiled programs: every run compiles."""
    use_cache_root(tmp_path)


def _spec(name: str) -> Spec:
    [spec] = [s for s in rope.SPECS if s.name == name]
    return spec


def _casts(x, y):
    return (x * y) * x  # bf16 rounding of the product matters


CASTS_CASE = Case(
    buffers={"x": Buffer((64,), torch.bfloat16), "y": Buffer((64,), torch.bfloat16)},
    args={"x": View("x"), "y": View("y")},
    seed=3,
)
CASTS = Spec("casts", _casts, None, None, bit_exact=False)


def test_every_compiled_mode_compiles_with_its_backend_and_config(monkeypatch):
    seen = []
    compile_fx, lookup_backend = compile_module.compile_fx, compile_module.lookup_backend

    def recording_compile_fx(gm, inputs, **kwargs):
        seen.append(("inductor", {key: getattr(inductor_config, key) for key in KEYS}))
        return compile_fx(gm, inputs, **kwargs)

    def recording_lookup(name):
        seen.append((name, {}))
        return lookup_backend(name)

    monkeypatch.setattr(compile_module, "compile_fx", recording_compile_fx)
    monkeypatch.setattr(compile_module, "lookup_backend", recording_lookup)
    KEYS = {key for mode in COMPILED.values() for key, _ in mode.config}
    for mode in {m.name: m for m in [*STAGES, *COMPILED.values()]}.values():
        if mode.deploy:
            continue  # no Dynamo backend: test_deployed
        seen.clear()
        observation = mode.run(CASTS, CASTS_CASE)
        assert observation.error is None and observation.vacuity is None, mode.name
        [(backend, config)] = seen
        assert backend == mode.backend, mode.name
        for key, value in mode.config:
            assert config[key] == value, (mode.name, key)
        if mode.backend == "inductor":
            # The suite's own setting holds unless the Mode turns it off.
            assert config["size_asserts"] == dict(mode.config).get("size_asserts", True)


def test_the_gate_offers_every_compiled_mode():
    assert [m.name for m in CHECKS["compiled"].modes] == list(COMPILED)
    assert COMPILED["inductor"] is INDUCTOR


@pytest.mark.skipif(triton_cpu.unavailable() is not None, reason=str(triton_cpu.unavailable()))
@pytest.mark.skipif(torch.cuda.is_available(), reason="with a GPU, Triton has an active driver")
def test_inductor_triton_needs_the_shim_and_it_works():
    # Fails when a release no longer needs the shim (remove it then) or
    # when the shim stops making the backend hash work.
    assert triton_cpu.needs_shim(), (
        f"torch {torch.__version__} hashes the Triton backend without an active driver: "
        "oracles/modes/triton_cpu.py's shim is no longer needed"
    )
    with pytest.raises(RuntimeError, match="active drivers"):
        torch.utils._triton.triton_hash_with_backend()
    with triton_cpu.interpreted():
        assert torch.utils._triton.triton_hash_with_backend() == triton_cpu.INTERPRETER_HASH


@needs_kernels
@pytest.mark.skipif(triton_cpu.unavailable() is not None, reason=str(triton_cpu.unavailable()))
def test_inductor_triton_runs_triton_kernels_in_the_interpreter(monkeypatch):
    from triton.runtime.interpreter import InterpretedFunction

    launches = []
    run = InterpretedFunction.run

    def counting_run(self, *args, **kwargs):
        launches.append(self)
        return run(self, *args, **kwargs)

    monkeypatch.setattr(InterpretedFunction, "run", counting_run)
    spec, mode = _spec("rotary_embedding_torch"), COMPILED["inductor_triton"]
    with spec.installed():
        findings, code = run_and_get_code(check_compiled, spec, SEED, None, mode)
    assert findings == []
    assert any("@triton.jit" in source for source in code)
    assert launches  # the kernels ran, in the interpreter


@pytest.mark.skipif(triton_cpu.unavailable() is not None, reason=str(triton_cpu.unavailable()))
def test_inductor_triton_runs_dynamic_batches():
    # Triton defines its own library's kernels as it is imported: the
    # interpreter must be on before that, or a dynamic kernel's call into
    # them fails ("Cannot call @triton.jit'd outside of the scope of a kernel").
    assert os.environ["TRITON_INTERPRET"] == "1"
    spec, mode = _spec("rotary_embedding_torch"), COMPILED["inductor_triton"]
    [batch] = sample(spec.batches(3), 1)
    shared = batch_signature(batch)
    for case in batch:
        assert not [f for f in check_compiled(spec, case, shared, mode) if f.blocking]


@needs_kernels
def test_no_size_asserts_turns_a_wrong_fake_into_wrong_values():
    spec = zoo_spec("rope_returns_inputs_gemma4_fake")
    with spec.installed():
        [asserted] = [f for f in check_compiled(spec, SEED) if f.blocking]
        found = check_compiled(spec, SEED, None, COMPILED["inductor_no_size_asserts"])
    assert asserted.verdict == "compiled" and "stride 6144==4096" in asserted.message
    verdicts = {f.verdict for f in found if f.blocking}
    assert "values" in verdicts and "compiled" not in verdicts
    assert any(
        "differ bit for bit between inductor_no_size_asserts and eager" in f.message
        for f in found
        if f.verdict == "values"
    ), found


@needs_kernels
def test_cpp_wrapper_generates_a_cpp_wrapper():
    spec = _spec("rotary_embedding_functional")
    with spec.installed():
        findings, code = run_and_get_code(
            check_compiled, spec, SEED, None, COMPILED["inductor_cpp_wrapper"]
        )
        _, python_code = run_and_get_code(check_compiled, spec, fused_qkv_seed_case(), None)
    assert findings == []
    assert any("inductor_entry_impl" in source for source in code), code[0][:2000]
    assert not any("inductor_entry_impl" in source for source in python_code)


def test_emulate_precision_casts_rounds_intermediates_as_eager_does():
    mode = COMPILED["inductor_emulate_precision_casts"]
    assert mode.unavailable(_spec("rotary_embedding")) is not None  # bit-exact specs: inductor
    assert mode.unavailable(CASTS) is None
    _, plain = run_and_get_code(INDUCTOR.run, CASTS, CASTS_CASE)
    observation, emulated = run_and_get_code(mode.run, CASTS, CASTS_CASE)
    assert observation.error is None and observation.vacuity is None
    assert plain != emulated  # the rounding of the product is in the code
