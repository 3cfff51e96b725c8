"""What a property may spend: its Hypothesis settings and its shrinking time.

Hypothesis bounds shrinking by a module constant of its engine, not by a
setting, so ``shrink_budget`` patches that constant while a property runs.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import hypothesis.internal.conjecture.engine as hypothesis_engine
from hypothesis import HealthCheck, reporting, settings

# Shrinking a failure stops after this long (a quarter of it in the searches
# for other kinds): every step of a compiled check compiles, and a minimal
# Case a minute late is worth less than a good one now.
SHRINK_SECONDS = 45


def check_settings(base: settings | None = None) -> settings:
    return settings(
        base or settings(),
        deadline=None,
        print_blob=False,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )


@contextlib.contextmanager
def shrink_budget(seconds: float) -> Iterator[None]:
    """Shrinking stops after ``seconds``, and Hypothesis says nothing of its own limit."""
    previous = hypothesis_engine.MAX_SHRINKING_SECONDS
    hypothesis_engine.MAX_SHRINKING_SECONDS = seconds  # type: ignore[assignment]
    reporter = reporting.current_reporter()

    def report(text: object) -> None:
        # Hypothesis warns of "five minutes" of shrinking: the budget is ours.
        if "Hypothesis has spent more than five minutes working to shrink" not in str(text):
            reporter(text)

    try:
        with reporting.with_reporter(report):
            yield
    finally:
        hypothesis_engine.MAX_SHRINKING_SECONDS = previous
