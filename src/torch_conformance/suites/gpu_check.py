"""The GPU check, for a machine with CUDA (``scripts/gpu-check`` runs it)::

    python -m torch_conformance.suites.gpu_check [--out DIR] [--workers N]

Two pytest runs on CUDA tensors (``--device=cuda``), each writing its JSON
and Markdown reports into ``DIR`` (default ``conformance-out/gpu-check``):

- ``gate``: the CI gate's fake, schema and compiled checks for every spec
  of the catalog that runs on CUDA (its Triton specs natively, the native
  ones included; a spec or Mode that cannot run there is skipped, saying
  why);
- ``seed-004``: seed 004, the spec ``apply_interleaved_rope_slices`` on its
  explicit example (bf16 ``x = cache[..., :64]`` of ``[3, 8192, 128]``, so
  ``[3, 8192, 64]``, mrope sections ``[24, 20, 20]``) compiled by
  ``inductor``, replayed alone.

It prints the torch, Triton and GPU it ran and whether seed 004
reproduced: pytorch/pytorch#193183, on torch 2.12 and 2.13 with the Triton
they ship, fixed in torch 2.14 (Triton 3.8.0). Where this machine has no
CUDA it stops at once, in one line. Exit status: the gate's (seed 004
reproducing is what an old torch is expected to do, not a failure of the
check).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

from torch_conformance.oracles.core.devices import DeviceError, parse_device
from torch_conformance.oracles.core.locations import OUTPUT

SEED_SPEC = "apply_interleaved_rope_slices"
SEED_LABEL = "seed 004"
# The gate's checks that a GPU changes: what the fake and the schema claim
# of CUDA tensors, and what Inductor generates for them (Triton, natively).
GATE_TESTS = tuple(
    f"torch_conformance/test_conformance.py::test_{c}" for c in ("fake", "schema", "compiled")
)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="scripts/gpu-check", description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=OUTPUT / "gpu-check")
    parser.add_argument("--workers", default="auto", help="pytest-xdist workers for the gate")
    options = parser.parse_args(argv)
    try:
        device = parse_device("cuda")
    except DeviceError as error:
        print(f"gpu-check needs CUDA: {error}", file=sys.stderr)
        return 2
    out: Path = options.out
    out.mkdir(parents=True, exist_ok=True)
    print(_versions(), flush=True)
    gate = _pytest(
        out, "gate", device, *GATE_TESTS, "--hypothesis-profile=ci", "-n", options.workers,
        "--dist", "worksteal",
    )  # fmt: skip
    cases = _seed_cases(out / "seed-004.cases")
    _pytest(
        out, "seed-004", device, "torch_conformance/test_conformance.py::test_compiled",
        f"--spec={SEED_SPEC}",
        "--modes=inductor", f"--replay={cases}", "-n", "0",
    )  # fmt: skip
    print(_seed_verdict(out / "seed-004.json"))
    print(f"reports: {out}")
    return gate


def _versions() -> str:
    import torch

    try:
        import triton

        triton_version = triton.__version__
    except ImportError:
        triton_version = "not installed"
    gpu = torch.cuda.get_device_name()
    return f"torch {torch.__version__} (CUDA {torch.version.cuda}), Triton {triton_version}, {gpu}"


def _pytest(out: Path, name: str, device: str, *arguments: str) -> int:
    """One pytest run on ``device``, its reports ``out/name.json`` and ``.md``."""
    command = [
        sys.executable, "-m", "pytest", "--conformance-only", "--catalog", *arguments,
        f"--device={device}", "-p", "no:cacheprovider",
        f"--report-json={out / f'{name}.json'}", f"--report-md={out / f'{name}.md'}",
        f"--repro-dir={out / 'repro'}", "-q",
    ]  # fmt: skip
    print("$ " + " ".join(command[1:]), flush=True)
    return subprocess.run(command).returncode


def _seed_cases(path: Path) -> Path:
    """Seed 004's Case as a replay file, for the compiled check in inductor."""
    from torch_conformance.oracles.runner.replay import Replay
    from torch_conformance.suites.catalog import builtin_specs

    (spec,) = [s for s in builtin_specs() if s.name == SEED_SPEC]
    (case,) = [c for c in spec.examples if c.label.startswith(SEED_LABEL)]
    return Replay(spec.name, "compiled", (case,), 0, False, "inductor").save(path)


def _seed_verdict(report: Path) -> str:
    """Whether the seed's Case failed the compiled check, from its report."""
    try:
        results = json.loads(report.read_text())["results"]
    except (OSError, ValueError, KeyError):
        return f"seed 004: no report ({report}): the run stopped before it wrote one"
    (result,) = [r for r in results if r.get("check") == "compiled"] or [{"outcome": "not run"}]
    outcome = result["outcome"]
    if outcome == "failed":
        verdict = "REPRODUCED (expected on torch 2.12 and 2.13, fixed in 2.14)"
    elif outcome == "passed":
        verdict = "did not reproduce (expected from torch 2.14, Triton 3.8.0, on)"
    else:
        verdict = f"not judged ({outcome}: {result.get('reason', 'see the report')})"
    return f"seed 004 ({SEED_SPEC}, bf16 [3, 8192, 64], sections [24, 20, 20], inductor): {verdict}"


if __name__ == "__main__":
    sys.exit(main())
