"""The eager Mode's run of an op on a Case in a forked child
(``oracles.core.isolation``), where a kernel that dies on it takes no
worker with it."""

from __future__ import annotations

import dataclasses

from torch_conformance.oracles.core.buffers import Case
from torch_conformance.oracles.core.isolation import Prober
from torch_conformance.oracles.core.specification import Spec
from torch_conformance.oracles.modes.eager import EAGER

# The prober of the spec judged now (a run judges one spec after another),
# and what each probed run of an op did: every check draws Cases of its own,
# but a Case's program leaves the op's own run as it is.
_PROBER: dict[str, Prober[Case]] = {}
_PROBED: dict[str, str | None] = {}


def kills(spec: Spec, case: Case) -> str | None:
    """The signal that kills a process running ``spec``'s op on ``case``
    (as ``SIGSEGV``), told in a forked child; None where the op survives it."""
    alone = dataclasses.replace(case, program=None, tangents=())
    key = f"{spec.name}: {alone!r}"
    if key not in _PROBED:
        if spec.name not in _PROBER:
            for prober in _PROBER.values():
                prober.close()
            _PROBER.clear()
            _PROBER[spec.name] = Prober(lambda c: EAGER.run(spec, c))
        _PROBED[key] = _PROBER[spec.name].killed_by(alone)
    return _PROBED[key]
