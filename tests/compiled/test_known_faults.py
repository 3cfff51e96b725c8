"""Each known compiler fault's entry holds on this release: its standalone
script reproduces it exactly where the entry says. The PR gate leaves the
scripts out (they judge torch, not the specs); the suite's own tests and the
nightly run them (``torch_conformance/test_known_faults.py``, with the deployments)."""

from __future__ import annotations

import pytest

from torch_conformance.oracles.triage.faults import KNOWN_FAULTS, KnownFault
from torch_conformance.suites.test_known_faults import disagreement


@pytest.mark.parametrize("fault", KNOWN_FAULTS, ids=lambda fault: fault.script)
def test_the_known_fault_reproduces_where_its_entry_says(fault: KnownFault) -> None:
    problem = disagreement(fault, fault.reproduces())
    assert problem is None, problem
