"""``--device``: a name is checked before anything runs, and a device this
machine lacks stops the run in one line."""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch
from hypothesis import settings

from torch_conformance.oracles.checks import CHECKS
from torch_conformance.oracles.core.buffers import Buffer, Case, View
from torch_conformance.oracles.core.devices import DeviceError, parse_device
from torch_conformance.oracles.core.expectation import on_cpu
from torch_conformance.oracles.core.signature import batch_signature, signature_of
from torch_conformance.oracles.core.specification import Spec, SpecError
from torch_conformance.oracles.modes.compiled import COMPILED
from torch_conformance.oracles.repro.script import render_repro
from torch_conformance.oracles.runner.loading import validate
from torch_conformance.oracles.runner.property import run_property
from torch_conformance.oracles.runner.replay import Replay
from torch_conformance.oracles.runner.tally import Tally, case_key
from torch_conformance.suites import gpu_check
from torch_conformance.suites.catalog import builtin_specs

CHECKOUT = Path(__file__).resolve().parents[2]
NO_CUDA = not torch.cuda.is_available()


@pytest.mark.parametrize(("name", "spelt"), [("cpu", "cpu"), ("cpu:0", "cpu")])
def test_the_cpu_is_spelt_one_way(name, spelt):
    assert parse_device(name) == spelt


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("gpu", "not a device; Cases live on cpu (the default) or cuda[:N]"),
        ("mps", "Cases live on cpu (the default) or cuda[:N], not on mps"),
    ],
)
def test_an_unknown_device_is_refused(name, message):
    with pytest.raises(DeviceError) as raised:
        parse_device(name)
    assert str(raised.value) == message


def test_a_torch_without_cuda_says_so(monkeypatch):
    monkeypatch.setattr(torch.version, "cuda", None)
    monkeypatch.setattr(torch.version, "hip", None)
    with pytest.raises(DeviceError) as raised:
        parse_device("cuda")
    assert str(raised.value) == (
        f"this torch build ({torch.__version__}) has no CUDA; --device=cpu is the default"
    )


def test_a_machine_without_a_cuda_device_says_so(monkeypatch):
    monkeypatch.setattr(torch.version, "cuda", "13.0")
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    with pytest.raises(DeviceError) as raised:
        parse_device("cuda:0")
    assert str(raised.value) == (
        "this machine has no CUDA device torch can use; --device=cpu is the default"
    )


def test_an_index_past_the_devices_says_how_many_there_are(monkeypatch):
    monkeypatch.setattr(torch.version, "cuda", "13.0")
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 2)
    assert parse_device("cuda:1") == "cuda:1"
    with pytest.raises(DeviceError) as raised:
        parse_device("cuda:2")
    assert str(raised.value) == (
        "this machine has 2 CUDA device(s), cuda:0 to cuda:1; --device=cpu is the default"
    )


def _collect(*options: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "pytest", "--conformance-only", "--catalog", "-n", "0",
        "--collect-only", "-q",
         "-p", "no:cacheprovider", *options],
        cwd=CHECKOUT, capture_output=True, text=True, timeout=300,
    )  # fmt: skip


@pytest.mark.skipif(not NO_CUDA, reason="this machine has CUDA: --device=cuda runs here")
def test_device_cuda_without_cuda_stops_in_one_line():
    result = _collect("--device=cuda")
    assert result.returncode == pytest.ExitCode.USAGE_ERROR
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("ERROR: --device=cuda: ")
    assert lines[0].endswith("; --device=cpu is the default")


def test_an_unknown_device_is_a_usage_error():
    result = _collect("--device=tpu:0")
    assert result.returncode == pytest.ExitCode.USAGE_ERROR
    assert "ERROR: --device=tpu:0: " in result.stderr


def _case() -> Case:
    return Case({"x": Buffer((2, 3), torch.float32)}, {"x": View("x")}, seed=7, label="example")


def test_a_cpu_case_keeps_its_repr_key_and_description():
    case = _case()
    assert case.device == "cpu" and case.on("cpu") is case
    assert "device" not in repr(case)
    assert case.describe() == "example: x=float32[2, 3] stride=(3, 1) offset=0"


# The meta device stands in for CUDA where this machine has none: the Case
# carries it through every route a device takes that needs no kernel.
def test_a_case_on_another_device_says_so_and_allocates_there(tmp_path):
    case = _case().on("meta")
    assert case.describe().endswith("; on meta")
    assert case_key(case) != case_key(_case())
    assert {b.device.type for b in case.allocate().values()} == {"meta"}
    replay = Replay("spec", "fake", (case,), 0, False, "fake")
    assert Replay.load(replay.save(tmp_path / "x.cases")).cases[0].device == "meta"


def test_a_reference_of_a_cpu_case_gets_its_own_tensors():
    plain = {"x": torch.ones(2)}
    assert on_cpu(plain)["x"] is plain["x"]


@pytest.mark.skipif(NO_CUDA, reason="no CUDA device here: the CUDA Case runs on a GPU machine")
def test_a_cuda_case_holds_the_cpu_cases_values_and_fakes_of_cuda():
    from torch_conformance.oracles.modes.fake import FAKE

    case = _case().on(parse_device("cuda"))
    assert torch.equal(case.allocate()["x"].cpu(), _case().allocate()["x"])
    assert on_cpu(case.allocate())["x"].device.type == "cpu"
    spec = Spec("neg", torch.ops.aten.neg.default, cases=None, reference=None)  # type: ignore[arg-type]
    observed = FAKE.run(spec, dataclasses.replace(case, args={"self": View("x")}))
    assert observed.error is None and observed.outputs[0].device.type == "cuda"


def _catalog(name: str) -> Spec:
    (spec,) = [s for s in builtin_specs() if s.name == name]
    return spec


@pytest.mark.parametrize(
    ("name", "devices"),
    [
        ("rotary_embedding", ("cpu",)),  # a C++ kernel
        ("rotary_embedding_triton", ("cpu", "cuda")),  # interpreted or native
        ("rotary_embedding_triton_native", ("cuda",)),
        ("rotary_embedding_torch", ("cpu", "cuda")),  # pure PyTorch
    ],
)
def test_a_spec_runs_where_its_kernels_are(name, devices):
    assert _catalog(name).runs_on == devices


def test_a_spec_off_its_devices_says_where_it_runs():
    assert _catalog("rotary_embedding").unavailable_on("cuda:1") == (
        "its op runs on cpu only, not on cuda:1"
    )
    assert _catalog("rotary_embedding_torch").unavailable_on("cuda") is None


def test_a_spec_says_where_it_runs_in_its_own_words():
    spec = dataclasses.replace(_catalog("rotary_embedding_torch"), devices=("cuda",))
    assert spec.unavailable_on("cpu") == "its op runs on cuda only, not on cpu"
    with pytest.raises(SpecError, match=r"devices must be a tuple of cpu and cuda, or None"):
        validate(dataclasses.replace(spec, devices=("tpu",)), "here")


def test_inductors_triton_backend_is_the_cpus():
    mode = COMPILED["inductor_triton"]
    assert mode.unavailable_on("cpu") is None
    assert mode.unavailable_on("cuda") == (
        "the inductor_triton mode runs on cpu only, not on cuda: on CUDA, inductor itself "
        "generates Triton, run natively"
    )
    assert COMPILED["inductor"].unavailable_on("cuda") is None


@pytest.mark.skipif(not NO_CUDA, reason="this machine has CUDA: the GPU check runs here")
def test_the_gpu_check_without_cuda_stops_in_one_line():
    result = subprocess.run(
        [CHECKOUT / "scripts" / "gpu-check"], cwd=CHECKOUT, capture_output=True, text=True,
        timeout=120, env={**os.environ, "PYTHON": sys.executable},
    )  # fmt: skip
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.count("\n") == 1, result.stderr
    assert result.stderr.startswith("gpu-check needs CUDA: ")


def test_the_gpu_check_replays_seed_004_as_the_upstream_report_ran_it(tmp_path):
    replay = Replay.load(gpu_check._seed_cases(tmp_path / "seed.cases"))
    (case,) = replay.cases
    x = case.bind(case.meta_buffers())["x"]
    assert (replay.check, replay.mode, x.dtype, tuple(x.shape)) == (
        "compiled", "inductor", torch.bfloat16, (3, 8192, 64),
    )  # fmt: skip
    assert case.args["mrope_section"] == [24, 20, 20]


@pytest.mark.parametrize(
    ("outcome", "said"),
    [("failed", "REPRODUCED"), ("passed", "did not reproduce"), ("skipped", "not judged")],
)
def test_the_gpu_check_says_whether_seed_004_reproduced(tmp_path, outcome, said):
    report = tmp_path / "seed-004.json"
    report.write_text(json.dumps({"results": [{"check": "compiled", "outcome": outcome}]}))
    assert said in gpu_check._seed_verdict(report)


def test_a_repro_script_allocates_a_case_on_its_device_and_a_cpu_case_as_before():
    spec = _catalog("rotary_embedding_torch")
    case = spec.examples[0]
    on_cpu_text = render_repro(spec, "compiled", [case], 0, False)
    on_device = render_repro(spec, "compiled", [case.on("meta")], 0, False)
    assert '"device": ' not in on_cpu_text and ".to(case[" not in on_cpu_text
    assert '"device": "meta",' in on_device
    assert 'buffer.allocate(generator).to(case["device"]) for' in on_device
    compile(on_device, "script.py", "exec")


def test_a_program_compiled_for_one_device_never_serves_another():
    case = _catalog("rotary_embedding_torch").examples[0]
    (on_cpu_signature, sizes), (on_device, device_sizes) = map(
        signature_of, (case, case.on("meta"))
    )
    assert on_cpu_signature != on_device and sizes == device_sizes
    assert repr(on_cpu_signature) == repr(on_device)
    assert batch_signature([case.on("meta")]).signature.device == "meta"


@pytest.mark.parametrize("check", ["reference", "schema"])
def test_a_scripts_reference_runs_on_the_cpu_copies(check):
    main = CHECKS[check].script.main(_catalog("rotary_embedding_torch"), None, "reference")
    assert "(b.cpu() for b in before.values())" in main


def test_device_cpu_judges_every_case_as_the_default_run_does():
    spec = _catalog("rotary_embedding_torch")
    runs = []
    for device in ({}, {"device": "cpu"}):
        tally = Tally()
        quick = settings(max_examples=8, derandomize=True, database=None)
        run_property(spec, "fake", quick, tally=tally, **device)
        runs.append(tally.per_case)
    assert runs[0] == runs[1] and len(runs[0]) > 2


@pytest.mark.skipif(not NO_CUDA, reason="this machine has CUDA: the native specs run here")
def test_a_native_spec_without_cuda_skips_as_its_prepare_always_said():
    from torch_conformance.kernels import triton as triton_kernels

    reason = _catalog("rotary_embedding_triton_native").unavailable_on("cpu")
    assert reason == triton_kernels.native_unavailable() and reason is not None


@pytest.mark.parametrize(("device", "named"), [("cpu", None), ("cuda:0", "cuda:0")])
def test_a_report_names_the_device_where_it_is_not_the_cpu(tmp_path, device, named):
    from torch_conformance.reports.plugin import RunReport

    path = tmp_path / "report.json"
    RunReport(path, None, device).pytest_sessionfinish(None)  # type: ignore[arg-type]
    assert json.loads(path.read_text()).get("device") == named
