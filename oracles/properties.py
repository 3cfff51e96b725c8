"""Run a check as a Hypothesis property over a spec's Cases.

The property fails with a :class:`~oracles.findings.ConformanceFailure`
listing every Finding, which Hypothesis shrinks to a minimal Case. The
spec's explicit examples always run first. Every check runs the profile's
number of examples; compiled ones have no deadline and no slowness health
check, since a cold compile costs a second.
"""

from __future__ import annotations

from collections.abc import Callable

from hypothesis import HealthCheck, event, example, given, note, settings

from oracles.checks import CHECKS, op_name
from oracles.findings import ConformanceFailure, Finding
from oracles.spec import Spec


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
) -> None:
    """Run ``check`` on the spec's examples, then on generated Cases.

    ``on_finding(finding, case)`` sees every non-blocking Finding, and the
    blocking ones of the Case the property finally fails on.
    """
    judge = CHECKS[check]
    with spec.installed():

        def prop(case):
            description = case.describe()
            findings = judge(spec, case)
            for finding in findings:
                if not finding.blocking:
                    event(f"non-blocking finding: {finding.verdict}")
                    note(str(finding))
                    if on_finding is not None:
                        on_finding(finding, description)
            if any(finding.blocking for finding in findings):
                raise ConformanceFailure(check, op_name(spec), description, findings)

        prop.__name__ = prop.__qualname__ = f"{check}_check_of_{spec.name.replace('.', '_')}"
        test = given(case=spec.cases)(prop)
        for case in reversed(spec.examples):
            test = example(case=case)(test)
        test = check_settings(base)(test)
        # One example database entry per spec and check, not one for all.
        test.hypothesis.inner_test._hypothesis_internal_add_digest = f"{spec.name}/{check}".encode()
        try:
            test()
        except ConformanceFailure as failure:
            for finding in failure.findings:
                if finding.blocking and on_finding is not None:
                    on_finding(finding, failure.case)
            raise
