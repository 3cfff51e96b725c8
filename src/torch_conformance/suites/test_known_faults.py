"""Each known compiler fault, reproduced on this release by its standalone script.

The known-fault list demotes a Finding only on the releases an entry names,
so the entry must say the truth on every release: a release that fixes the
fault, or one newly affected, fails here until ``upstream/known_faults.json``
is brought up to date. Each record says whether the fault reproduced, so the
matrix shows where each one does. The nightly also runs each script with its
torch.compile replaced by the deployments its entry lists
(``upstream/deployed.py``), against the releases the entry gives each.
"""

from __future__ import annotations

import pytest

from torch_conformance.oracles.triage.faults import KNOWN_FAULTS, KnownFault


def disagreement(fault: KnownFault, reproduces: bool, deployed: str = "") -> str | None:
    """What is wrong with ``fault``'s entry on this release (for the
    deployment ``deployed`` names), if anything."""
    if reproduces == fault.affects(deployed=deployed):
        return None
    listed = ", ".join(fault.releases_under(deployed)) or "no release"
    where, field = (f" under {deployed}", f"deployed.{deployed}") if deployed else ("", "releases")
    return (
        f"the known fault {fault.name!r} "
        + ("reproduces" if reproduces else "does not reproduce")
        + f"{where} on {fault.tool} {fault.version}, but its entry lists {listed}: update "
        f"its {field} in upstream/known_faults.json (repro: {fault.repro_under(deployed)})"
    )


def _judge(fault: KnownFault, request: pytest.FixtureRequest, deployed: str = "") -> None:
    reproduces = fault.reproduces(deployed)
    request.node.user_properties += [
        ("spec", fault.name),
        ("check", "known_fault"),
        ("mode", deployed or "inductor"),
        ("reproduces", reproduces),
        ("about", f"{fault.summary}; {fault.references()}repro: {fault.repro}"),
    ]
    problem = disagreement(fault, reproduces, deployed)
    if problem is not None:
        pytest.fail(problem, pytrace=False)


@pytest.mark.parametrize("fault", KNOWN_FAULTS, ids=lambda fault: fault.script)
def test_known_fault(fault: KnownFault, request: pytest.FixtureRequest) -> None:
    _judge(fault, request)


@pytest.mark.parametrize(
    ("fault", "deployed"),
    [(fault, how) for fault in KNOWN_FAULTS for how, _ in fault.deployed],
    ids=lambda value: value if isinstance(value, str) else value.script,
)
def test_known_fault_deployed(
    fault: KnownFault, deployed: str, request: pytest.FixtureRequest
) -> None:
    _judge(fault, request, deployed)
