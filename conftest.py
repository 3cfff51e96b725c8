"""Hypothesis profiles, the --specs option and the spec parametrization."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings
from hypothesis.database import DirectoryBasedExampleDatabase

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


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    specs = metafunc.config.stash[_SPECS]
    if "spec" in metafunc.fixturenames:
        metafunc.parametrize("spec", [pytest.param(s, id=s.id) for s in specs])
    if "domain_spec" in metafunc.fixturenames:
        declared = [pytest.param(s, id=s.id) for s in specs if s.domain is not None]
        metafunc.parametrize("domain_spec", declared)
