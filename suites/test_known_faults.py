"""Each known compiler fault, reproduced on this release by its standalone script.

The known-fault list demotes a Finding only on the releases an entry names,
so the entry must say the truth on every release: a release that fixes the
fault, or one newly affected, fails here until ``upstream/known_faults.json``
is brought up to date. Each record says whether the fault reproduced, so the
matrix shows where each one does.
"""

from __future__ import annotations

import pytest

from oracles.triage.faults import KNOWN_FAULTS, KnownFault


def disagreement(fault: KnownFault, reproduces: bool) -> str | None:
    """What is wrong with ``fault``'s entry on this release, if anything."""
    if reproduces == fault.affects():
        return None
    listed = ", ".join(fault.releases) or "no release"
    return (
        f"the known fault {fault.name!r} "
        + ("reproduces" if reproduces else "does not reproduce")
        + f" on {fault.tool} {fault.version}, but its entry lists {listed}: update its "
        f"releases in upstream/known_faults.json (repro: {fault.repro})"
    )


@pytest.mark.parametrize("fault", KNOWN_FAULTS, ids=lambda fault: fault.script)
def test_known_fault(fault: KnownFault, request: pytest.FixtureRequest) -> None:
    reproduces = fault.reproduces()
    request.node.user_properties += [
        ("spec", fault.name),
        ("check", "known_fault"),
        ("mode", "inductor"),
        ("reproduces", reproduces),
        ("about", f"{fault.summary}; {fault.references()}repro: {fault.repro}"),
    ]
    problem = disagreement(fault, reproduces)
    if problem is not None:
        pytest.fail(problem, pytrace=False)
