"""Run a check as a Hypothesis property over a spec's Cases.

The property fails with a :class:`~oracles.findings.ConformanceFailure`
listing every Finding, which Hypothesis shrinks to a minimal Case. The
spec's explicit examples always run first. Every check runs the profile's
number of Cases; compiled ones have no deadline and no slowness health
check, since a cold compile costs a second.

Where the spec draws batches, the Inductor check's Hypothesis example is a
batch of Cases sharing one compiled program (dynamic in what varies across
the batch), and the profile's number of Cases is reached in fewer, larger
examples: that is what amortizes the compiles.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from hypothesis import HealthCheck, event, example, given, note, settings

from oracles.case import Case
from oracles.checks import CHECKS, check_inductor
from oracles.findings import ConformanceFailure, Finding
from oracles.signature import batch_signature
from oracles.spec import Spec

# Cases per compiled program in the Inductor check, where the spec draws batches.
BATCH_SIZE = 10


def check_settings(base: settings | None = None) -> settings:
    return settings(
        base or settings(),
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )


def run_property(
    spec: Spec,
    check: str,
    base: settings | None = None,
    on_finding: Callable[[Finding, str], None] | None = None,
    batch_size: int = BATCH_SIZE,
) -> None:
    """Run ``check`` on the spec's examples, then on generated Cases.

    ``on_finding(finding, case)`` sees every non-blocking Finding, and the
    blocking ones of the Case the property finally fails on. ``batch_size``
    1 compiles every Case on its own.
    """
    batched = check == "inductor" and spec.batches is not None and batch_size > 1
    judge = CHECKS[check]
    with spec.installed():

        def prop(cases: list[Case]) -> None:
            batch = batch_signature(cases) if batched and len(cases) > 1 else None
            for index, case in enumerate(cases):
                description = case.describe()
                if batch is not None:
                    description += (
                        f" (Case {index + 1} of a batch of {len(cases)} sharing one "
                        "program compiled with dynamic shapes)"
                    )
                findings = check_inductor(spec, case, batch) if batch else judge(spec, case)
                for finding in findings:
                    if not finding.blocking:
                        event(f"non-blocking finding: {finding.verdict}")
                        note(str(finding))
                        if on_finding is not None:
                            on_finding(finding, description)
                if any(finding.blocking for finding in findings):
                    raise ConformanceFailure(check, spec.label, description, findings)

        prop.__name__ = prop.__qualname__ = f"{check}_check_of_{spec.name.replace('.', '_')}"
        base = check_settings(base)
        if batched:
            strategy = spec.batches(batch_size)
            base = settings(base, max_examples=math.ceil(base.max_examples / batch_size))
        else:
            strategy = spec.cases.map(lambda case: [case])
        test = given(cases=strategy)(prop)
        for case in reversed(spec.examples):
            test = example(cases=[case])(test)
        test = base(test)
        # One example database entry per spec and check, not one for all.
        test.hypothesis.inner_test._hypothesis_internal_add_digest = f"{spec.name}/{check}".encode()
        try:
            test()
        except ConformanceFailure as failure:
            for finding in failure.findings:
                if finding.blocking and on_finding is not None:
                    on_finding(finding, failure.case)
            raise
