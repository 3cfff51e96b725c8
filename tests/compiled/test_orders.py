"""A verdict is a function of its Case: the same Cases judged in another
order, after another check in the same process, give the same Findings,
known-fault attributions included. (``python -m torch_conformance.reports.orders`` does the
same for the whole gate, in two processes' worth of test orders.)"""

from __future__ import annotations

from hypothesis import HealthCheck, Phase, given, settings

from tests.zoo_helpers import needs_kernels
from torch_conformance.oracles.checks.compiled import check_compiled
from torch_conformance.oracles.checks.programs import check_programs
from torch_conformance.oracles.core.buffers import Case
from torch_conformance.oracles.core.signature import batch_signature
from torch_conformance.oracles.core.specification import Spec
from torch_conformance.oracles.modes.cache import compiled_programs, use_cache_root
from torch_conformance.oracles.modes.compiled import INDUCTOR
from torch_conformance.oracles.runner.tally import case_key, tokens
from torch_conformance.oracles.strategies.programs import program_cases
from torch_conformance.suites.catalog import builtin_specs


def _drawn(strategy, count: int) -> list:
    """``count`` values of ``strategy``, the same on every run."""
    drawn = []

    @settings(
        max_examples=count,
        derandomize=True,
        database=None,
        phases=[Phase.generate],
        deadline=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(strategy)
    def collect(value) -> None:
        drawn.append(value)

    collect()
    return drawn[:count]


def _judged(spec: Spec, batches: list[list[Case]]) -> dict[str, list[str]]:
    return {
        case_key(case): tokens(check_compiled(spec, case, batch_signature(batch), INDUCTOR))
        for batch in batches
        for case in batch
    }


@needs_kernels
def test_the_compiled_checks_findings_do_not_depend_on_what_ran_before(tmp_path) -> None:
    # The in-place rope op: its batches meet two known faults, whose
    # attribution compiles witnesses and switches of its own.
    [spec] = [s for s in builtin_specs() if s.name == "rotary_embedding"]
    [other] = [s for s in builtin_specs() if s.name == "rotary_embedding_functional"]
    previous = compiled_programs().cache_root
    try:
        with spec.installed(), other.installed():
            batches = _drawn(spec.batches(4), 3)
            use_cache_root(tmp_path / "first")
            first = _judged(spec, batches)
            use_cache_root(tmp_path / "second")
            for case in _drawn(program_cases(other), 2):
                check_programs(other, case, None, INDUCTOR)
            second = _judged(spec, batches[::-1])
    finally:
        use_cache_root(previous)
    assert first == second
    assert any(first.values()), "the Cases meet no Finding: the test would prove nothing"
