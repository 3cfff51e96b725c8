"""Hypothesis profiles and their Modes, the command-line options, and the
parametrization of the gate by spec and Mode."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from hypothesis import HealthCheck, settings
from hypothesis.database import DirectoryBasedExampleDatabase

if TYPE_CHECKING:
    from oracles.spec import Spec

pytest_plugins = ["reports.plugin"]

# Generating a Case can be slow while compiles load both cores: that is the
# machine, not the strategy, so the slowness health check is off everywhere.
_PATIENT = {"deadline": None, "suppress_health_check": [HealthCheck.too_slow]}
settings.register_profile("dev", max_examples=20, database=None, **_PATIENT)
settings.register_profile(
    "ci", max_examples=100, derandomize=True, database=None, print_blob=True, **_PATIENT
)
settings.register_profile(
    "nightly",
    max_examples=1000,
    database=DirectoryBasedExampleDatabase(".hypothesis/examples"),
    print_blob=True,
    **_PATIENT,
)
settings.load_profile("dev")

# The compiled Modes each profile runs (the other checks have one Mode each).
# dev runs every Mode, so `-k inductor_triton` selects one on a laptop; ci runs those
# that catch what inductor alone cannot within the gate's time: a wrong fake
# under inductor_no_size_asserts gives wrong values instead of an assert,
# and inductor_triton checks Inductor's Triton code generation; nightly runs
# every Mode. --modes overrides the profile's choice.
PROFILE_MODES = {
    "dev": "all",
    "ci": ("inductor", "inductor_no_size_asserts", "inductor_triton"),
    "nightly": "all",
}
# A family tag narrows a profile's Modes for the specs it tags. The Triton
# kernels' specs: on the CPU a Triton kernel is an opaque custom op, so the
# programs compiled around it are the C++ kernel's graphs, which ci runs in
# all three Modes; on a GPU, where Inductor sees into it, inductor_triton
# (a CPU backend) and the asserts on outputs it does not return add nothing.
# The norm, activation and collective specs' programs are the op and what it
# returns or writes: Inductor generates no kernel around it but the copies
# back into written inputs, which the rope family's Specs already run through
# inductor_triton, so ci runs them in inductor and inductor_no_size_asserts.
_OPAQUE = ("inductor", "inductor_no_size_asserts")
# Modes that matter only around an opaque op with a fake: without its size
# asserts, Inductor trusts a wrong fake silently, and a pure-PyTorch op has no
# fake to trust, so ci runs these for ops with a schema only.
PROFILE_FAKE_MODES = {"ci": ("inductor_no_size_asserts",)}
PROFILE_TAG_MODES = {
    "ci": {"triton": ("inductor",), "norm": _OPAQUE, "activation": _OPAQUE, "collective": _OPAQUE}
}

# The programs check compiles every example on its own, so profiles give it
# a budget of its own (examples per spec and Mode) and ci runs it in inductor
# only: a few programs per spec in the gate, hours of them at night.
PROFILE_CHECK_EXAMPLES = {
    "dev": {"programs": 10},
    "ci": {"programs": 4},
    "nightly": {"programs": 200},
}
PROFILE_CHECK_MODES = {"ci": {"programs": ("inductor",)}}

_SPECS = pytest.StashKey[list]()


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--specs",
        action="append",
        default=[],
        metavar="PATH_OR_MODULE",
        help="run the checks on the SPECS of this file or module instead of the "
        "built-in catalog (repeatable)",
    )
    parser.addoption(
        "--batch-size",
        type=int,
        default=None,
        metavar="N",
        help="Cases per compiled program in the Inductor check, for specs that draw "
        "batches (default 10; 1 compiles every Case alone, statically)",
    )
    parser.addoption(
        "--repro-dir",
        type=Path,
        default=Path(__file__).parent / "reports" / "out" / "repro",
        metavar="DIR",
        help="where a failing check writes its standalone repro script and the Cases "
        "--replay reruns (default reports/out/repro)",
    )
    parser.addoption(
        "--replay",
        type=Path,
        default=None,
        metavar="FILE",
        help="rerun exactly the Cases of a failure (the .cases file its report names) "
        "instead of a search",
    )
    parser.addoption(
        "--modes",
        default=None,
        metavar="NAMES",
        help="the compiled Modes to run, comma-separated, or 'all' (default: the "
        "Hypothesis profile's; see the README); an injected compiler fault runs only "
        "where named",
    )
    parser.addoption(
        "--fresh-caches",
        action="store_true",
        help="compile into a fresh Inductor cache, removed at exit, instead of "
        "the persistent one under .cache/inductor",
    )


def pytest_configure(config: pytest.Config) -> None:
    from oracles.compile import use_cache_root
    from oracles.spec import SpecError, load_specs
    from suites.catalog import builtin_specs

    targets = config.getoption("--specs")
    try:
        specs = [s for t in targets for s in load_specs(t)] if targets else builtin_specs()
    except SpecError as error:
        raise pytest.UsageError(f"--specs: {error}") from error
    config.stash[_SPECS] = specs
    batch_size = config.getoption("--batch-size")
    if batch_size is not None and batch_size < 1:
        raise pytest.UsageError(f"--batch-size must be at least 1, got {batch_size}")
    if config.getoption("--fresh-caches"):
        folder = Path(tempfile.mkdtemp(prefix="conformance-inductor-"))
        config.add_cleanup(lambda: shutil.rmtree(folder, ignore_errors=True))
    else:
        folder = Path(__file__).parent / ".cache" / "inductor"
    use_cache_root(folder)
    selected_modes(config)  # a misspelt --modes stops the run here


def selected_modes(
    config: pytest.Config, spec: Spec | None = None, check: str | None = None
) -> list[str]:
    """The compiled Modes this run selects (for ``spec`` and ``check``):
    --modes, else the profile's, narrowed by the spec's family tags and for
    the check; an injected compiler fault only where --modes names it."""
    from oracles.modes import COMPILED
    from suites.catalog import fault_modes

    option = config.getoption("--modes")
    profile = settings.get_current_profile_name()
    chosen = option.split(",") if option else PROFILE_MODES.get(profile, "all")
    if chosen == "all" or chosen == ["all"]:
        chosen = list(COMPILED)
    faults = fault_modes()
    unknown = sorted(set(chosen) - set(COMPILED) - set(faults))
    if unknown:
        raise pytest.UsageError(
            f"--modes: no Mode {', '.join(unknown)}; the compiled Modes are "
            f"{', '.join(COMPILED)}; the injected compiler faults are {', '.join(faults)}"
        )
    if spec is not None and not option:
        for tag, modes in PROFILE_TAG_MODES.get(profile, {}).items():
            if tag in spec.families:
                chosen = [m for m in chosen if m in modes]
    if spec is not None and not option and not _has_schema(spec):
        chosen = [m for m in chosen if m not in PROFILE_FAKE_MODES.get(profile, ())]
    if check is not None and not option:
        modes = PROFILE_CHECK_MODES.get(profile, {}).get(check)
        if modes is not None:
            chosen = [m for m in chosen if m in modes]
    return [m for m in (*COMPILED, *faults) if m in chosen]


def _has_schema(spec: Spec) -> bool:
    """The spec's op is a torch op (a qualified name or an overload), not a
    Python function; known without loading it."""
    return isinstance(spec.op, str) or hasattr(spec.op, "_schema")


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "namespace" in metafunc.fixturenames:
        specs = metafunc.config.stash[_SPECS]
        metafunc.parametrize("namespace", sorted({s.namespace for s in specs if s.namespace}))
    check = getattr(metafunc.function, "check", None)
    if check is None:
        return
    specs = [s for s in metafunc.config.stash[_SPECS] if check.applies(s)]
    single = [check.modes[0].name] if len(check.modes) == 1 else None
    params = [
        pytest.param(spec, mode, id=spec.id if single else f"{spec.id}-{mode}")
        for spec in specs
        for mode in single or selected_modes(metafunc.config, spec, check.name)
    ]
    metafunc.parametrize("spec,mode", params)


def check_examples(check: str) -> int | None:
    """The examples the current profile gives ``check``, if it sets them."""
    return PROFILE_CHECK_EXAMPLES.get(settings.get_current_profile_name(), {}).get(check)
