"""The conformance gate: every check on every selected Spec.

Specs come from the built-in catalog, or from ``--specs PATH_OR_MODULE``;
test ids carry each spec's families and name, so ``-k rope`` and
``-k <spec name>`` select.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from oracles.properties import BATCH_SIZE, run_property
from oracles.spec import Spec, Unavailable


def _run(
    spec: Spec, check: str, record_finding: Callable | None = None, batch_size: int | None = None
) -> None:
    try:
        run_property(spec, check, on_finding=record_finding, batch_size=batch_size or BATCH_SIZE)
    except Unavailable as error:
        pytest.skip(f"{spec.name}: {error}")


def test_reference(spec: Spec, record_finding: Callable) -> None:
    """Eager results are within the spec's ULP budget of the float64 reference."""
    _run(spec, "reference", record_finding)


def test_fake(spec: Spec, record_finding: Callable) -> None:
    """The fake promises the real kernel's shapes, strides, offsets and aliasing."""
    _run(spec, "fake", record_finding)


def test_schema(spec: Spec, record_finding: Callable) -> None:
    """The real kernel aliases and writes only what its schema declares."""
    _run(spec, "schema", record_finding)


def test_inductor(spec: Spec, record_finding: Callable, request: pytest.FixtureRequest) -> None:
    """The Inductor-compiled program agrees with eager, and really compiled."""
    _run(spec, "inductor", record_finding, request.config.getoption("--batch-size"))
