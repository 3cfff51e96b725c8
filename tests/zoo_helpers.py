"""Shared helpers for tests that run zoo and catalog specs."""

from __future__ import annotations

import math

import pytest
from hypothesis import settings

from torch_conformance.kernels.build import toolchain_problem
from torch_conformance.oracles.core.findings import CheckFailure
from torch_conformance.oracles.core.specification import Spec
from torch_conformance.oracles.runner.property import run_property
from torch_conformance.suites import zoo
from torch_conformance.suites.policy import PROFILES

needs_kernels = pytest.mark.skipif(
    toolchain_problem() is not None, reason=f"C++ kernels unavailable: {toolchain_problem()}"
)

CI = settings.get_profile("ci")
GATE = PROFILES["ci"]


def _as_the_gate_runs(check: str) -> dict:
    """The budget the ci gate gives ``check``: its examples, and its Cases
    in the gate's number of compiled batches."""
    examples = GATE.check_examples.get(check)
    return {
        "base": CI if examples is None else settings(CI, max_examples=examples),
        "batch_size": math.ceil(GATE.max_examples / GATE.compiled_batches),
    }


def zoo_spec(name: str) -> Spec:
    [spec] = [s for s in zoo.SPECS if s.name == name]
    return spec


def failure(spec: Spec, check: str) -> str:
    """The message of the CheckFailure the check must raise as the ci gate runs it."""
    with pytest.raises(CheckFailure) as info:
        run_property(spec, check, **_as_the_gate_runs(check))
    return str(info.value)


def passes(spec: Spec, check: str) -> None:
    """The check passes as the ci gate runs it."""
    run_property(spec, check, **_as_the_gate_runs(check))
