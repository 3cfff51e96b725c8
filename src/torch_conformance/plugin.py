"""The suite's pytest plugin, registered by the ``pytest11`` entry point:
its command-line options, the policy of each Hypothesis profile
(``suites.policy``), the collection of the suite's checks and their
parametrization by spec and Mode.

Loaded in every pytest run of an environment that has the suite, it does
nothing (imports no torch, registers no Hypothesis profile, collects
nothing) unless a run names the suite: ``--specs``, ``--specs-from``,
``--spec``, ``--catalog``, ``--replay`` or ``--conformance-only``. Then it adds the suite's checks
(``suites/test_*.py`` in the installed package) to what the run collects,
beside the user's own tests, under node ids that begin with
``torch_conformance/``; such a node id given on the command line selects
that test. Specs load when a test needs them, not at start-up.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import pytest

from torch_conformance.oracles.core.locations import OUTPUT, PACKAGE, cache_root

pytest_plugins = ["torch_conformance.reports.plugin"]

_SPECS = pytest.StashKey[list]()
_REPLAY = pytest.StashKey[object]()
_SELECTED = pytest.StashKey[list]()
# Per spec of the run, where it came from (none for the catalog's).
ORIGINS = pytest.StashKey[dict]()
# The suite's test modules, and the prefix of their node ids in any run.
SUITE_TESTS = ("test_conformance.py", "test_registry.py", "test_known_faults.py")
NODE_PREFIX = "torch_conformance/"
# The options that make a run one of the suite's.
SUITE_OPTIONS = ("--specs", "--specs-from", "--spec", "--catalog", "--replay", "--conformance-only")


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("torch-conformance", "torch.compile conformance suite")
    group.addoption(
        "--catalog",
        action="store_true",
        help="run the checks on the suite's built-in catalog of reference kernels",
    )
    group.addoption(
        "--conformance-only",
        action="store_true",
        help="collect the suite's checks alone, none of the project's own tests",
    )
    parser.addoption(
        "--specs",
        action="append",
        default=[],
        metavar="PATH_OR_MODULE",
        help="run the checks on the SPECS of this file or module instead of the "
        "built-in catalog (repeatable)",
    )
    parser.addoption(
        "--specs-from",
        action="append",
        default=[],
        metavar="RECORDING",
        help="run the checks on every op of a recording (torch-conformance record), "
        "without a spec of its own: the recorded calls as Cases, and Cases around them "
        "(repeatable; ops a --specs spec covers are left to it)",
    )
    parser.addoption(
        "--spec",
        action="append",
        default=[],
        metavar="NAME",
        help="run only the spec of this exact name (repeatable); -k NAME also selects "
        "every spec whose name contains NAME",
    )
    parser.addoption(
        "--batch-size",
        type=int,
        default=None,
        metavar="N",
        help="Cases per compiled program in the compiled check (default: the profile's "
        "Cases over its compiles per spec and Mode, see suites/policy.py; 1 compiles "
        "every Case alone, statically)",
    )
    parser.addoption(
        "--compiles",
        type=int,
        default=None,
        metavar="N",
        help="a budget of compiles per spec, check and Mode (default: the profile's, "
        "see suites/policy.py): the compiled check's Cases come in N batches, one "
        "compiled program each, and the programs check draws N programs; known-fault "
        "triage and the stage at fault compile on top, and the report counts them",
    )
    parser.addoption(
        "--repro-dir",
        type=Path,
        default=OUTPUT / "repro",
        metavar="DIR",
        help="where a failing check writes its standalone repro script and the Cases "
        "--replay reruns (default conformance-out/repro, under the current folder)",
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
        "--skip-examples",
        action="store_true",
        help="leave out the specs' explicit examples, which Hypothesis never shrinks: "
        "a failure is then a generated Case, shrunk",
    )
    parser.addoption(
        "--modes",
        default=None,
        metavar="NAMES",
        help="the compiled Modes to run, comma-separated, or 'all' (default: the "
        "Hypothesis profile's; see docs/reference/profiles.md); an injected compiler fault "
        "runs only where named",
    )
    parser.addoption(
        "--device",
        default="cpu",
        metavar="DEVICE",
        help="where every Case's buffers live and every Mode runs: cpu (the default) "
        "or cuda[:N]; references are computed in float64 on the CPU from copies",
    )
    parser.addoption(
        "--reverse",
        action="store_true",
        help="run the tests in reverse order (python -m torch_conformance.reports.orders "
        "compares two orders Case by Case)",
    )
    parser.addoption(
        "--rejudge",
        action="store_true",
        help="judge every test again, ignoring the verdicts kept from earlier runs "
        "(a derandomized profile keeps a passing test's verdict while nothing it depends "
        "on changes)",
    )
    parser.addoption(
        "--verdict-store",
        type=Path,
        default=None,
        metavar="DIR",
        help="keep verdicts under DIR (default: verdicts/ in the user's cache folder)",
    )
    parser.addoption(
        "--fresh-caches",
        action="store_true",
        help="compile into a fresh Inductor cache, removed at exit, instead of "
        "the persistent one in the user's cache folder",
    )
    parser.addoption(
        "--inductor-cache",
        type=Path,
        default=None,
        metavar="DIR",
        help="keep Inductor's persistent caches under DIR (default: inductor/ in the "
        "user's cache folder, $TORCH_CONFORMANCE_CACHE or ~/.cache/torch-conformance)",
    )


def _runs_tests(config: pytest.Config) -> bool:
    """This process runs tests: an xdist worker, or a run without workers."""
    return hasattr(config, "workerinput") or config.getoption("dist", "no") == "no"


def active(config: pytest.Config) -> bool:
    """The run names the suite (one of ``SUITE_OPTIONS``, or a node id of its checks)."""
    named = any(config.getoption(o.lstrip("-").replace("-", "_")) for o in SUITE_OPTIONS)
    return named or any(str(a).startswith(NODE_PREFIX) for a in config.args)


@pytest.hookimpl(tryfirst=True)  # before Hypothesis's plugin loads the profile
def pytest_configure(config: pytest.Config) -> None:
    if not active(config):
        return
    from torch_conformance.suites.policy import register_profiles

    register_profiles()
    # Node ids of the suite's checks select them; they are no paths to collect.
    config.stash[_SELECTED] = [a for a in config.args if str(a).startswith(NODE_PREFIX)]
    config.args[:] = [a for a in config.args if not str(a).startswith(NODE_PREFIX)]
    _check_profile(config)
    _check_device(config)
    for option in ("--batch-size", "--compiles"):
        value = config.getoption(option)
        if value is not None and value < 1:
            raise pytest.UsageError(f"{option} must be at least 1, got {value}")
    if _runs_tests(config):
        _use_caches(config)
        quiet_torch_trace()
    # A misspelt --modes or a malformed spec file stops the run here.
    if config.getoption("--modes"):
        _modes(config)
    if any(config.getoption(option) for option in ("--specs", "--spec", "--specs-from")):
        run_specs(config)
    if config.getoption("--replay") is not None:
        _replay(config)


def _check_profile(config: pytest.Config) -> None:
    from hypothesis import settings

    name = config.getoption("hypothesis_profile", None)
    # Hypothesis's own "default" is no profile of the suite's.
    known = sorted(p for p in settings._profiles if p != "default")  # no public list
    if name is not None and name not in known:
        raise pytest.UsageError(
            f"--hypothesis-profile={name}: no such profile; the profiles are {', '.join(known)}"
        )


def _check_device(config: pytest.Config) -> None:
    """``--device`` checked, and spelt one way (``cpu:0`` is ``cpu``) for
    every test that reads it."""
    from torch_conformance.oracles.core.devices import DeviceError, parse_device

    name = config.getoption("--device")
    try:
        config.option.device = parse_device(name)
    except DeviceError as error:
        raise pytest.UsageError(f"--device={name}: {error}") from None


def _use_caches(config: pytest.Config) -> None:
    from torch_conformance.oracles.modes.cache import use_cache_root

    if config.getoption("--fresh-caches"):
        folder = Path(tempfile.mkdtemp(prefix="conformance-inductor-"))
        config.add_cleanup(lambda: shutil.rmtree(folder, ignore_errors=True))
    else:
        folder = config.getoption("--inductor-cache") or cache_root() / "inductor"
    use_cache_root(folder)


def quiet_torch_trace() -> None:
    """Keep pytest's log handlers off torch's structured-trace logger.

    pytest attaches its handlers to every logger that does not propagate, and
    torch's trace logger is one; while that logger has a handler, torch builds
    every trace record (guard text, Python and C++ stacks), about a tenth of a
    compile. Propagating, it gets none of them: its records (only where
    TORCH_TRACE asks for them) reach pytest's handlers at the root, below
    their level.
    """
    import torch._logging._internal

    torch._logging._internal.trace_log.propagate = True


def _modes(config: pytest.Config) -> list[str]:
    from torch_conformance.suites.policy import ModesError, selected_modes

    try:
        return selected_modes(config.getoption("--modes"))
    except ModesError as error:
        raise pytest.UsageError(f"--modes: {error}") from error


def _replay(config: pytest.Config):
    """The ``--replay`` file's Cases, read once: a missing or malformed file
    stops the run here, in one line."""
    from torch_conformance.oracles.core.specification import SpecError
    from torch_conformance.oracles.runner.replay import Replay

    if _REPLAY not in config.stash:
        try:
            config.stash[_REPLAY] = Replay.load(config.getoption("--replay"))
        except SpecError as error:
            raise pytest.UsageError(str(error)) from None
    return config.stash[_REPLAY]


def run_specs(config: pytest.Config) -> list:
    """The run's specs (``--specs``, else the built-in catalog), loaded once."""
    if _SPECS not in config.stash:
        from torch_conformance.oracles.core.specification import SpecError
        from torch_conformance.oracles.runner.loading import load_specs
        from torch_conformance.suites.catalog import builtin_specs

        targets = config.getoption("--specs")
        recordings = config.getoption("--specs-from")
        origins: dict[str, str] = {}  # spec name -> the file, module or recording it came from
        try:
            specs = []
            for target in targets:
                loaded = load_specs(target)
                origins |= {s.name: target for s in loaded}
                specs += loaded
        except SpecError as error:
            raise pytest.UsageError(f"--specs: {error}") from error
        if recordings:
            from torch_conformance.oracles.recording.specs import recorded_specs

            covered = {s.op if isinstance(s.op, str) else str(s.overload) for s in specs}
            try:
                for recording in recordings:
                    loaded = recorded_specs(recording, skip=covered)
                    origins |= {s.name: recording for s in loaded}
                    specs += loaded
            except SpecError as error:
                raise pytest.UsageError(f"--specs-from: {error}") from error
        config.stash[ORIGINS] = origins
        if config.getoption("--catalog") or not (targets or recordings):
            specs += builtin_specs()
        names = config.getoption("--spec")
        unknown = sorted(set(names) - {s.name for s in specs})
        if unknown:
            known = ", ".join(sorted(s.name for s in specs))
            raise pytest.UsageError(f"--spec: no spec {', '.join(unknown)}; the specs are {known}")
        config.stash[_SPECS] = [s for s in specs if not names or s.name in names]
    return config.stash[_SPECS]


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """``--conformance-only``: the run collects the suite's checks alone."""
    return True if config.getoption("--conformance-only") else None


def pytest_collection_modifyitems(
    session: pytest.Session, config: pytest.Config, items: list[pytest.Item]
) -> None:
    """The suite's checks join what the run collected (and, where node ids
    of them were given, only those run). Only the nightly runs the built-in
    known faults' scripts, under the deployments too (each compiles in a
    process of its own, and they judge torch's release, not the specs: the
    PR gate, a run of the user's specs and the quick dev run leave them to
    the nightly and the suite's own tests), and no run shows a check that
    applies to none of its specs as a skipped test."""
    if not active(config):
        return
    from torch_conformance.suites.policy import current

    items += _suite_items(session)
    selected = config.stash.get(_SELECTED, [])
    own = config.getoption("--specs") or config.getoption("--specs-from")
    scripts = current().known_fault_scripts and not own
    deployed = current().deployed_fault_scripts and not own
    kept: list[pytest.Item] = []
    dropped: list[pytest.Item] = []
    for item in items:
        empty = any(
            str(mark.kwargs.get("reason", "")).startswith("got empty parameter set")
            for mark in item.iter_markers("skip")
        )
        known = item.nodeid.startswith(NODE_PREFIX + "test_known_faults.py") and not (
            deployed if "test_known_fault_deployed[" in item.nodeid else scripts
        )
        unselected = selected and not any(_selects(n, item.nodeid) for n in selected)
        (dropped if empty or known or unselected else kept).append(item)
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = kept
    if config.getoption("--reverse"):
        items.reverse()


def _suite_items(session: pytest.Session) -> list[pytest.Item]:
    """The suite's checks, collected from the installed package under node
    ids of their own (``torch_conformance/test_conformance.py::...``),
    whatever the run's folder and its ``python_files``."""
    items: list[pytest.Item] = []
    for name in SUITE_TESTS:
        path = PACKAGE / "suites" / name
        module = pytest.Module.from_parent(session, path=path, nodeid=NODE_PREFIX + name)
        items += [item for item in session.genitems(module) if isinstance(item, pytest.Item)]
    return items


def _selects(given: str, nodeid: str) -> bool:
    """A node id given on the command line selects the test (or its every parameter)."""
    return nodeid == given or nodeid.startswith(given + "[") or nodeid.startswith(given + "::")


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "namespace" in metafunc.fixturenames:
        specs = run_specs(metafunc.config)
        metafunc.parametrize("namespace", sorted({s.namespace for s in specs if s.namespace}))
    check = getattr(metafunc.function, "check", None)
    if check is None:
        return
    from torch_conformance.suites.catalog import fault_modes

    specs = [s for s in run_specs(metafunc.config) if check.applies(s)]
    single = [check.modes[0].name] if len(check.modes) == 1 else None
    # A check runs in the Modes it lists (the backward checks in no deployment
    # Mode), and in any injected compiler fault named.
    runs_in = {mode.name for mode in check.modes} | set(fault_modes())
    modes = [mode for mode in single or _modes(metafunc.config) if mode in runs_in]
    params = [
        pytest.param(spec, mode, id=spec.id if single else f"{spec.id}-{mode}")
        for spec in specs
        for mode in modes
    ]
    metafunc.parametrize("spec,mode", params)
