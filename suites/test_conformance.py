"""The conformance gate: every check on every selected Spec.

Specs come from the built-in catalog, or from ``--specs PATH_OR_MODULE``;
test ids carry each spec's families and name, so ``-k rope`` and
``-k <spec name>`` select. A failure prints its Findings, the shrunk Case,
a command that reruns exactly that Case and a standalone repro script.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable

import pytest

from oracles.findings import CheckFailure
from oracles.properties import BATCH_SIZE, Replay, ReproOptions, run_property
from oracles.spec import Spec, Unavailable
from reports.crashes import running_file


def _run(spec: Spec, check: str, request: pytest.FixtureRequest, record_finding: Callable) -> None:
    config = request.config
    replay = config.getoption("--replay")
    if replay is not None:
        replay = Replay.load(replay)
        if (replay.spec, replay.check) != (spec.name, check):
            pytest.skip(f"--replay holds Cases of the {replay.check} check of {replay.spec}")
    rerun = " ".join(
        ["pytest", shlex.quote(request.node.nodeid)]
        + [shlex.quote(f"--specs={target}") for target in config.getoption("--specs")]
    )
    failure = None
    try:
        run_property(
            spec,
            check,
            on_finding=record_finding,
            batch_size=config.getoption("--batch-size") or BATCH_SIZE,
            repro=ReproOptions(config.getoption("--repro-dir"), rerun),
            replay=replay,
            running=running_file(config.getoption("--repro-dir")),
        )
    except Unavailable as error:
        pytest.skip(f"{spec.name}: {error}")
    except CheckFailure as error:
        failure = error
    if failure is not None:
        # The report says all there is: the suite's own stack would bury it.
        pytest.fail(failure.report(), pytrace=False)


def test_reference(spec: Spec, request: pytest.FixtureRequest, record_finding: Callable) -> None:
    """Eager results are within the spec's ULP budget of the float64 reference."""
    _run(spec, "reference", request, record_finding)


def test_fake(spec: Spec, request: pytest.FixtureRequest, record_finding: Callable) -> None:
    """The fake promises the real kernel's shapes, strides, offsets and aliasing."""
    _run(spec, "fake", request, record_finding)


def test_schema(spec: Spec, request: pytest.FixtureRequest, record_finding: Callable) -> None:
    """The real kernel aliases and writes only what its schema declares."""
    _run(spec, "schema", request, record_finding)


def test_inductor(spec: Spec, request: pytest.FixtureRequest, record_finding: Callable) -> None:
    """The Inductor-compiled program agrees with eager, and really compiled."""
    _run(spec, "inductor", request, record_finding)


def test_domain_edges(
    domain_spec: Spec, request: pytest.FixtureRequest, record_finding: Callable
) -> None:
    """How a kernel with a declared domain behaves just outside it (reported, never blocking)."""
    _run(domain_spec, "domain_edges", request, record_finding)
