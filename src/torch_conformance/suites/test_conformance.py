"""The conformance gate: every check on every selected Spec, in every selected Mode.

The tests are made from ``oracles.checks.CHECKS``: one test function per
check (``test_fake``, ``test_compiled``, ...), parametrized by spec and, for
a check that runs in several Modes, by Mode. Test ids carry each spec's
families and name and the Mode, so ``-k rope``, ``-k <spec name>`` and
``-k triton`` select. A failure prints its Findings, the shrunk Case, a
command that reruns exactly that Case and a standalone repro script.
"""

from __future__ import annotations

import dataclasses
import functools
import shlex
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import settings

from torch_conformance.oracles.checks import CHECKS, Check
from torch_conformance.oracles.core.devices import DEFAULT_DEVICE
from torch_conformance.oracles.core.findings import CheckFailure, ConformanceFailure
from torch_conformance.oracles.core.specification import HoldsByConstruction, Spec, Unavailable
from torch_conformance.oracles.runner.loading import load_specs
from torch_conformance.oracles.runner.property import run_property
from torch_conformance.oracles.runner.replay import Replay, ReproOptions
from torch_conformance.oracles.runner.tally import Tally
from torch_conformance.oracles.strategies.programs import program_cases
from torch_conformance.reports.crashes import running_file
from torch_conformance.reports.store import serve, store_of, verdict_key
from torch_conformance.suites.catalog import fault_modes
from torch_conformance.suites.policy import batch_size, check_examples, current


def _run(
    spec: Spec,
    check: str,
    mode: str,
    request: pytest.FixtureRequest,
    record_finding: Callable,
) -> None:
    config = request.config
    request.node.user_properties += [("spec", spec.id), ("check", check), ("mode", mode)]
    replay = config.getoption("--replay")
    if replay is not None:
        replay = Replay.load(replay)  # conftest stopped the run at configure if it cannot
        if (replay.spec, replay.check, replay.mode) != (spec.name, check, mode):
            pytest.skip(
                f"--replay holds Cases of the {replay.check} check of {replay.spec} "
                f"in the {replay.mode} mode"
            )
    fault = fault_modes().get(mode)
    # A verdict kept from an earlier run while nothing it depends on changed
    # (never an injected fault's, never a failure).
    store = store_of(config) if fault is None else None
    key = verdict_key(config, request.node.nodeid, [spec]) if store is not None else None
    if serve(store, key, request.node):
        return
    device = config.getoption("--device")
    rerun = " ".join(
        ["pytest", shlex.quote(request.node.nodeid)]
        + [shlex.quote(f"--specs={target}") for target in _defining(spec, config)]
        + [shlex.quote(f"--specs-from={t}") for t in config.getoption("--specs-from")]
        + ([f"--modes={mode}"] if fault is not None else [])
        + (["--skip-examples"] if config.getoption("--skip-examples") else [])
        + ([f"--device={device}"] if device != DEFAULT_DEVICE else [])
        # One test: workers would only add their start-up.
        + ["-n", "0"]
    )
    failure = None
    tally = Tally()
    try:
        compiles = config.getoption("--compiles")
        examples = check_examples(check, compiles, mode)
        run_property(
            spec,
            _as_the_profile_runs(check),
            base=None if examples is None else settings(max_examples=examples),
            mode=fault or mode,
            on_finding=record_finding,
            batch_size=config.getoption("--batch-size") or batch_size(compiles),
            repro=ReproOptions(config.getoption("--repro-dir"), rerun),
            replay=replay,
            running=running_file(config.getoption("--repro-dir")),
            tally=tally,
            examples=not config.getoption("--skip-examples"),
            device=device,
        )
    except HoldsByConstruction as error:
        request.node.user_properties.append(("holds", str(error)))
        pytest.skip(f"{spec.name}: {error}")
    except Unavailable as error:
        pytest.skip(f"{spec.name}: {error}")
    except CheckFailure as error:
        failure = error
    finally:
        request.node.user_properties += [
            ("cases", tally.cases),
            ("compiles", tally.compiles),
            ("signatures", tally.signatures),
            ("per_case", tally.per_case),
        ]
        if tally.not_judgeable:
            request.node.user_properties.append(("not_judgeable", tally.not_judgeable))
        if tally.edges:
            request.node.user_properties.append(("recording_edges", tally.edges))
    if failure is not None:
        request.node.user_properties += [("failure", reproduction(f)) for f in failure.failures]
        # The report says all there is: the suite's own stack would bury it.
        pytest.fail(failure.report(), pytrace=False)
    if store is not None and key is not None:
        store.keep(key, request.node.nodeid, request.node.user_properties)


def _as_the_profile_runs(check: str) -> str | Check:
    """The check, as the profile runs it: its generated programs end with no
    backward where the profile says so."""
    if check != "programs" or current().program_backward:
        return check
    return dataclasses.replace(
        CHECKS[check], cases=functools.partial(program_cases, backward=False)
    )


def _defining(spec: Spec, config: pytest.Config) -> list[str]:
    """The ``--specs`` targets that define ``spec``: a rerun needs only those."""
    targets = config.getoption("--specs")
    return [t for t in targets if spec.name in {s.name for s in load_specs(t)}] or targets


def reproduction(failure: ConformanceFailure) -> dict:
    """How a report reproduces one failure: its Case, the rerun command and
    the standalone repro script's text."""
    script = failure.script
    return {
        "case": failure.case,
        "rerun": failure.rerun,
        "script": None if script is None else str(script),
        "script_text": None if script is None else Path(script).read_text(),
        "script_problem": failure.script_problem,
    }


def _test_of(check: Check) -> Callable[..., None]:
    def test(spec: Spec, mode: str, request: pytest.FixtureRequest, record_finding) -> None:
        _run(spec, check.name, mode, request, record_finding)

    test.__name__ = f"test_{check.name}"
    test.__doc__ = f"The {check.name} check: {check.compares}."
    # What conftest parametrizes the test by.
    test.check = check  # type: ignore[attr-defined]
    return test


for _check in CHECKS.values():
    globals()[f"test_{_check.name}"] = _test_of(_check)
