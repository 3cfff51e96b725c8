"""What each Hypothesis profile runs: one ``Profile`` a profile, holding its
examples, its compiled Modes, the budgets it gives the checks that compile
and what it leaves to others.

``ci`` is the PR gate: the checks that compile nothing judge every Case, and
the compiled checks run in ``inductor`` alone, on as few compiles as find
what the zoo plants. ``nightly`` keeps the depth: every Mode, hundreds of
compiles a check, the known faults' scripts, and the version matrix runs it
on every release. Adding a profile is adding one ``Profile`` to
``PROFILES``. ``conftest.py`` wires pytest to this module; nothing here
knows pytest.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence

from hypothesis import HealthCheck, settings
from hypothesis.database import DirectoryBasedExampleDatabase

# The checks that compile every example on its own: a budget of compiles is
# their number of examples.
COMPILES_EVERY_EXAMPLE = ("programs", "compiled_backward")


@dataclasses.dataclass(frozen=True)
class Profile:
    """One Hypothesis profile's policy."""

    name: str
    # Hypothesis's examples per check (the compiled check's Cases too).
    max_examples: int
    derandomize: bool
    # Where Hypothesis keeps failing examples between runs, if anywhere.
    database: str | None
    # The compiled Modes it runs ("all": every Mode); --modes overrides it.
    modes: Sequence[str] | str
    # The compiled check's compiles per spec and Mode: its Cases come in that
    # many batches, each one program compiled for one Signature, dynamic in
    # the sizes that vary within the batch. Cheap checks judge every Case.
    compiled_batches: int
    # The examples of the checks that compile every example on its own
    # (COMPILES_EVERY_EXAMPLE); a check it does not name keeps max_examples.
    check_examples: Mapping[str, int] = dataclasses.field(default_factory=dict)
    # A deployment Mode (export, aoti) exports once per input signature, and
    # AOTInductor's compile of a program costs 15 s and more: it judges as
    # many Cases as this budget of compiles, in every check.
    deployed_compiles: int = 10
    # Its generated programs may end with a backward through the op.
    program_backward: bool = False
    # It runs the known compiler faults' standalone scripts, and under the
    # deployments (export, AOTInductor: about 10 s a script each) too.
    known_fault_scripts: bool = False
    deployed_fault_scripts: bool = False
    # A failure prints the blob that replays it (a fresh draw's cannot).
    print_blob: bool = True

    def hypothesis_settings(self) -> settings:
        """Its settings, as Hypothesis registers them."""
        # Generating a Case can be slow while compiles load both cores: that
        # is the machine, not the strategy, so the slowness check is off.
        database = DirectoryBasedExampleDatabase(self.database) if self.database else None
        return settings(
            deadline=None,
            suppress_health_check=[HealthCheck.too_slow],
            max_examples=self.max_examples,
            derandomize=self.derandomize,
            database=database,
            print_blob=self.print_blob,
        )


# The README's plain `pytest`: a quick look, fresh draws every run.
DEV = Profile(
    "dev",
    max_examples=20,
    derandomize=False,
    database=None,
    modes=("inductor",),
    compiled_batches=2,
    check_examples={"programs": 2, "compiled_backward": 2},
    deployed_compiles=2,
    print_blob=False,
)
# The PR gate: dev's Modes and budgets (inductor alone, where a wrong fake's
# assert shows; a few generated programs and compiled backwards), over 100
# derandomized Cases in four compiles per spec (the zoo's compiled bugs show
# in the first batch or two). Not yet programs that end with a backward: on
# torch 2.11 to 2.13 one of them hits the known fault 'tile2d atomic add', a
# compiled backward that writes out of bounds and kills its process, and no
# triage can run in a process that died. The known faults' scripts judge
# torch's release, not the specs, each in a process of its own: the nightly
# and the suite's own tests run them.
CI = dataclasses.replace(
    DEV,
    name="ci",
    max_examples=100,
    derandomize=True,
    compiled_batches=4,
    deployed_compiles=4,
    print_blob=True,
)

PROFILES: dict[str, Profile] = {
    p.name: p
    for p in (
        DEV,
        CI,
        # The depth: every Mode (inductor_no_size_asserts, where a wrong fake
        # gives wrong values instead of an assert; inductor_triton, Inductor's
        # Triton code generation; the deployments), hundreds of compiles,
        # the known faults' scripts; the version matrix runs it per release.
        Profile(
            "nightly",
            max_examples=1000,
            derandomize=False,
            database=".hypothesis/examples",
            modes="all",
            compiled_batches=100,
            check_examples={"programs": 200, "compiled_backward": 100},
            deployed_compiles=10,
            program_backward=True,
            known_fault_scripts=True,
            deployed_fault_scripts=True,
        ),
    )
}


def register_profiles() -> None:
    """Register every profile with Hypothesis and load ``dev``."""
    for profile in PROFILES.values():
        settings.register_profile(profile.name, profile.hypothesis_settings())
    settings.load_profile("dev")


def current() -> Profile:
    """The loaded Hypothesis profile's policy. A profile of the user's own
    (``settings.register_profile``) runs every Mode, in 10 batches, with its
    own examples in every check."""
    name = settings.get_current_profile_name()
    if name in PROFILES:
        return PROFILES[name]
    return Profile(
        name,
        max_examples=settings().max_examples,
        derandomize=settings().derandomize,
        database=None,
        modes="all",
        compiled_batches=10,
    )


class ModesError(ValueError):
    """``--modes`` names no Mode."""


def selected_modes(option: str | None) -> list[str]:
    """The compiled Modes a run selects: those ``option`` names
    (``--modes``), else the profile's; an injected compiler fault only where
    ``option`` names it."""
    from torch_conformance.oracles.modes.compiled import COMPILED
    from torch_conformance.suites.catalog import fault_modes

    chosen = option.split(",") if option else current().modes
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


def batch_size(batches: int | None = None) -> int:
    """Cases per compiled program in the compiled check, so that the
    profile's Cases come in its number of batches (or in ``batches``, a
    budget of compiles)."""
    batches = batches or current().compiled_batches
    return max(1, math.ceil(settings().max_examples / batches))


def deployed(mode: str | None) -> bool:
    """``mode`` names a deployment Mode."""
    from torch_conformance.oracles.modes.compiled import COMPILED

    return mode in COMPILED and bool(COMPILED[mode].deploy)


def check_examples(check: str, compiles: int | None = None, mode: str | None = None) -> int | None:
    """The examples the current profile gives ``check`` (in ``mode``), if
    it sets them; a budget of ``compiles`` (``--compiles``) sets them for
    the checks that compile every example, and for a deployment Mode."""
    profile = current()
    if deployed(mode):
        return compiles or profile.deployed_compiles
    if compiles is not None and check in COMPILES_EVERY_EXAMPLE:
        return compiles
    return profile.check_examples.get(check)
