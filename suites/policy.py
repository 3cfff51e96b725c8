"""What each Hypothesis profile runs: its examples, its compiled Modes, and
the budgets it gives the checks that compile.

``ci`` is the PR gate: the checks that compile nothing judge every Case, and
the compiled checks run in ``inductor`` alone, on as few compiles as find
what the zoo plants. ``nightly`` keeps the depth: every Mode, hundreds of
compiles a check, the known faults' scripts, and the version matrix runs it
on every release. ``conftest.py`` wires pytest to this module; nothing here
knows pytest.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

from hypothesis import HealthCheck, settings
from hypothesis.database import DirectoryBasedExampleDatabase

if TYPE_CHECKING:
    pass

# The compiled Modes each profile runs (the other checks have one Mode each).
# dev, the README's plain `pytest`, and ci, the PR gate, run inductor alone
# (--modes adds others); nightly runs every Mode, inductor_no_size_asserts
# (a wrong fake gives wrong values instead of an assert) and inductor_triton
# (Inductor's Triton code generation) among them. --modes overrides the
# profile's choice.
PROFILE_MODES: dict[str, Sequence[str] | str] = {
    "dev": ("inductor",),
    "ci": ("inductor",),
    "nightly": "all",
}
# The programs check compiles every example on its own, so profiles give it
# a budget of its own (examples per spec and Mode): a few programs per spec
# in the gate, hours of them at night.
# The compiled backward check compiles every Case's forward and backward
# statically: a few in ci, where they show what no forward
# check can (the gradients AOTAutograd's partitioner and Inductor compute,
# and the upstream layouts they pass); more at night, in every Mode.
PROFILE_CHECK_EXAMPLES: dict[str, dict[str, int]] = {
    "dev": {"programs": 2, "compiled_backward": 2},
    "ci": {"programs": 2, "compiled_backward": 2},
    "nightly": {"programs": 200, "compiled_backward": 100},
}
# The checks that compile every example on its own: a budget of compiles is
# their number of examples.
COMPILES_EVERY_EXAMPLE = ("programs", "compiled_backward")
# The profiles whose generated programs may end with a backward through the
# op. Not yet the gate, nor the README's pytest: on torch 2.11 to 2.13 one of
# the gate's drawn programs hits the known fault 'tile2d atomic add', a compiled
# backward that writes out of bounds and kills its process, and no triage
# can run in a process that died; so the nightly runs it.
PROGRAM_BACKWARD_PROFILES = ("nightly",)
# The profiles that run the known compiler faults' standalone scripts: they
# judge torch's release (and keep the known-fault list true), not the specs,
# and each compiles in a process of its own, so the PR gate leaves them to
# the nightly and to the suite's own tests (tests/compiled/test_known_faults.py).
KNOWN_FAULT_PROFILES = ("nightly",)
# The profiles that also run them under the deployments (export, AOTInductor:
# about 10 s a script each) against each entry's ``deployed`` releases.
DEPLOYED_FAULT_PROFILES = ("nightly",)


def register_profiles() -> None:
    """The Hypothesis profiles ``dev`` (loaded), ``ci`` and ``nightly``."""
    # Generating a Case can be slow while compiles load both cores: that is the
    # machine, not the strategy, so the slowness health check is off everywhere.
    patient = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])
    settings.register_profile("dev", patient, max_examples=20, database=None)
    settings.register_profile(
        "ci", patient, max_examples=100, derandomize=True, database=None, print_blob=True
    )
    settings.register_profile(
        "nightly",
        patient,
        max_examples=1000,
        database=DirectoryBasedExampleDatabase(".hypothesis/examples"),
        print_blob=True,
    )
    settings.load_profile("dev")


class ModesError(ValueError):
    """``--modes`` names no Mode."""


def selected_modes(option: str | None) -> list[str]:
    """The compiled Modes a run selects: those ``option`` names
    (``--modes``), else the profile's; an injected compiler fault only where
    ``option`` names it."""
    from oracles.modes.compiled import COMPILED
    from suites.catalog import fault_modes

    profile = settings.get_current_profile_name()
    chosen = option.split(",") if option else PROFILE_MODES.get(profile, "all")
    if chosen == "all" or chosen == ["all"]:
        chosen = list(COMPILED)
    faults = fault_modes()
    unknown = sorted(set(chosen) - set(COMPILED) - set(faults))
    if unknown:
        raise ModesError(
            f"no Mode {', '.join(unknown)}; the compiled Modes are "
            f"{', '.join(COMPILED)}; the injected compiler faults are {', '.join(faults)}"
        )
    return [m for m in (*COMPILED, *faults) if m in chosen]


def program_backward(profile: str | None = None) -> bool:
    """Whether the profile's generated programs may end with a backward."""
    return (profile or settings.get_current_profile_name()) in PROGRAM_BACKWARD_PROFILES


# The compiled check's compiles per spec and Mode: its Cases come in that many
# batches, each one program compiled for one Signature, dynamic in the sizes
# that vary within the batch. Cheap checks judge every Case alone. Four in
# ci: the zoo's compiled bugs show in the first batch or two.
PROFILE_COMPILED_BATCHES: dict[str, int] = {"dev": 2, "ci": 4, "nightly": 100}


def batch_size(batches: int | None = None) -> int:
    """Cases per compiled program in the compiled check, so that the
    profile's Cases come in its number of batches (or in ``batches``, a
    budget of compiles)."""
    profile = settings.get_current_profile_name()
    batches = batches or PROFILE_COMPILED_BATCHES.get(profile, 10)
    return max(1, math.ceil(settings().max_examples / batches))


# A deployment Mode (export, aoti) exports once per input signature, a batch
# too (its Cases still export with dynamic dimensions), and AOTInductor's
# compile of a program costs 15 s and more: it judges as many Cases as its
# budget of compiles, in every check.
PROFILE_DEPLOYED_COMPILES: dict[str, int] = {"dev": 2, "ci": 4, "nightly": 10}


def deployed(mode: str | None) -> bool:
    """``mode`` names a deployment Mode."""
    from oracles.modes.compiled import COMPILED

    return mode in COMPILED and bool(COMPILED[mode].deploy)


def check_examples(check: str, compiles: int | None = None, mode: str | None = None) -> int | None:
    """The examples the current profile gives ``check`` (in ``mode``), if
    it sets them; a budget of ``compiles`` (``--compiles``) sets them for
    the checks that compile every example, and for a deployment Mode."""
    profile = settings.get_current_profile_name()
    if deployed(mode):
        return compiles or PROFILE_DEPLOYED_COMPILES.get(profile, 10)
    if compiles is not None and check in COMPILES_EVERY_EXAMPLE:
        return compiles
    return PROFILE_CHECK_EXAMPLES.get(profile, {}).get(check)


def runs_known_fault_scripts(deployed: bool = False) -> bool:
    """The loaded profile runs the known compiler faults' scripts (under the
    deployments, if ``deployed``)."""
    profiles = DEPLOYED_FAULT_PROFILES if deployed else KNOWN_FAULT_PROFILES
    return settings.get_current_profile_name() in profiles
