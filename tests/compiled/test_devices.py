"""``--device``: the CPU runs the device path through the same code, judging
alike; on a machine with CUDA the same checks run on CUDA tensors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import torch
from hypothesis import settings

from torch_conformance.oracles.runner.property import run_property
from torch_conformance.oracles.runner.tally import Tally
from torch_conformance.reports.diff import case_differences, differences, per_case, records
from torch_conformance.suites.catalog import builtin_specs

CHECKOUT = Path(__file__).resolve().parents[2]
needs_cuda = pytest.mark.skipif(
    not torch.cuda.is_available(), reason="no CUDA device here: the GPU check runs these"
)


def _gate(tmp_path: Path, name: str, *options: str) -> dict:
    """The fake, schema, compiled and backward checks of a rope spec of each
    kind of kernel (C++, Triton, PyTorch) and an mrope one, seeded, as a
    report. The eager backward runs the device code of the gradients (the
    tangents on the Case's device), so the compiled backward's compiles are
    left out."""
    report = tmp_path / f"{name}.json"
    subprocess.run(
        [sys.executable, "-m", "pytest", "--conformance-only", "--catalog", "-n", "0", "-q",
        "-p", "no:cacheprovider",
         "-k", "rotary_embedding and not functional and not mrope_rotary_embedding_triton "
         "and not native and not test_compiled_backward "
         "and (test_fake or test_schema or test_compiled or test_backward)",
         "--hypothesis-seed=0", "--compiles=1", f"--report-json={report}",
         f"--repro-dir={tmp_path / name}", *options],
        cwd=CHECKOUT, capture_output=True, text=True, timeout=900,
    )  # fmt: skip
    return json.loads(report.read_text())


def test_device_cpu_judges_the_rope_specs_as_the_default_run(tmp_path):
    default, cpu = _gate(tmp_path, "default"), _gate(tmp_path, "cpu", "--device=cpu")
    assert "device" not in cpu
    assert differences(records(default), records(cpu)) == []
    assert case_differences(per_case(default), per_case(cpu)) == []
    assert per_case(default).keys() == per_case(cpu).keys()  # seeded: the same Cases
    assert len(records(cpu)) > 10 and len(per_case(cpu)) > 100


def _spec(name: str):
    (spec,) = [s for s in builtin_specs() if s.name == name]
    return spec


@needs_cuda
@pytest.mark.parametrize("check", ["fake", "schema", "compiled"])
def test_a_pure_pytorch_spec_passes_on_cuda(check):
    tally = Tally()
    quick = settings(max_examples=10, derandomize=True, database=None)
    run_property(_spec("rotary_embedding_torch"), check, quick, tally=tally, device="cuda")
    assert tally.cases and all(key.endswith("; on cuda") for key in tally.per_case)


@needs_cuda
def test_a_cpp_kernel_spec_is_skipped_on_cuda_saying_why():
    from torch_conformance.oracles.core.specification import Unavailable

    with pytest.raises(Unavailable, match="runs on cpu only, not on cuda"):
        run_property(_spec("rotary_embedding"), "fake", device="cuda")
