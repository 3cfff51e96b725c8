"""Shared helpers for tests that run zoo and catalog specs."""

from __future__ import annotations

import pytest
from hypothesis import settings

from kernels.build import toolchain_problem
from oracles.core.findings import CheckFailure
from oracles.core.spec import Spec
from oracles.runner.property import run_property
from suites import zoo

needs_kernels = pytest.mark.skipif(
    toolchain_problem() is not None, reason=f"C++ kernels unavailable: {toolchain_problem()}"
)

CI = settings.get_profile("ci")


def zoo_spec(name: str) -> Spec:
    [spec] = [s for s in zoo.SPECS if s.name == name]
    return spec


def failure(spec: Spec, check: str) -> str:
    """The message of the CheckFailure the check must raise in the ci profile."""
    with pytest.raises(CheckFailure) as info:
        run_property(spec, check, CI)
    return str(info.value)


def passes(spec: Spec, check: str) -> None:
    run_property(spec, check, CI)
