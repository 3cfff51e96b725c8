"""Fixed samples of a Hypothesis strategy, outside any property."""

from __future__ import annotations

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st


def sample(strategy: st.SearchStrategy, count: int) -> list:
    """``count`` draws of ``strategy``, the same on every run."""
    drawn: list = []

    @settings(
        max_examples=count,
        derandomize=True,
        database=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
        deadline=None,
    )
    @given(strategy)
    def collect(value: object) -> None:
        drawn.append(value)

    collect()
    return drawn[:count]
