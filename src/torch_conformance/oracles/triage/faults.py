"""The known compiler faults: ``upstream/known_faults.json``, beside each
fault's standalone reproduction, loaded and checked.

Each entry gives the fault's name and summary, the torch releases it
affects (version prefixes), its script (``upstream/<script>.py``), its
upstream issues and fixing pull requests, the Verdicts it explains (and
its ``consequences``: Verdicts it explains only alongside those), the
facts of a Situation it needs (``when``, words of ``engine.FACTS``), the
kind of ``evidence`` it is matched on (``culprit``: the ``culprits`` and
``also``, names of ``switches.SWITCHES``; ``prediction``: ``predicts``, a name of
``predictions.PREDICTORS``) and optionally a supporting witness
(``supported_by``, one of ``engine.WITNESSES``); ``tool`` says whose releases
``releases`` are (``torch``, the default, or ``triton`` for its
interpreter, whose faults are explained by its self-check instead, see
``oracles.triage.interpreter``, so they explain no Verdict here); and
``deployed``, where the script reproduces it with its torch.compile
replaced by a deployment (``upstream/deployed.py``: ``export`` or
``aoti``), releases per deployment. A misspelt Verdict, fact, switch,
predictor, witness or deployment stops the import with the entry's name.
"""

from __future__ import annotations

import json

from torch_conformance.oracles.core.verdicts import VERDICTS
from torch_conformance.oracles.modes.deployment import DEPLOYMENTS
from torch_conformance.oracles.triage.engine import (
    CULPRIT,
    EVIDENCE,
    FACTS,
    PREDICTION,
    UPSTREAM,
    WITNESSES,
    KnownFault,
)
from torch_conformance.oracles.triage.predictions import PREDICTORS
from torch_conformance.oracles.triage.switches import SWITCHES


class FaultEntryError(ValueError):
    """An entry of the known faults names what does not exist."""


def _fault(entry: dict) -> KnownFault:
    fault = KnownFault(
        name=entry["name"],
        releases=tuple(entry["releases"]),
        summary=entry["summary"],
        script=entry["script"],
        upstream=tuple(entry["upstream"]),
        fixes=tuple(entry["fixes"]),
        explains=frozenset(entry["explains"]),
        when=frozenset(entry["when"]),
        evidence=entry.get("evidence", ""),
        culprits=tuple(entry.get("culprits", ())),
        also=tuple(entry.get("also", ())),
        predicts=entry.get("predicts", ""),
        supported_by=entry.get("supported_by", ""),
        tool=entry.get("tool", "torch"),
        consequences=frozenset(entry.get("consequences", ())),
        deployed=tuple((how, tuple(r)) for how, r in entry.get("deployed", {}).items()),
    )
    problems = [
        *(f"no Verdict {v!r}" for v in sorted(fault.explained - set(VERDICTS))),
        *(f"no fact {f!r}" for f in sorted(fault.when - FACTS)),
        *(f"no switch {c!r}" for c in (*fault.culprits, *fault.also) if c not in SWITCHES),
        *([f"no predictor {fault.predicts!r}"] if fault.predicts not in (*PREDICTORS, "") else []),
        *(_evidence_problems(fault) if fault.explains else []),
        *(
            [f"no witness {fault.supported_by!r}"]
            if fault.supported_by not in (*WITNESSES, "")
            else []
        ),
        *([f"no script {fault.repro}"] if not fault.path.is_file() else []),
        *(f"no deployment {how!r}" for how, _ in fault.deployed if how not in DEPLOYMENTS),
    ]
    if problems:
        raise FaultEntryError(f"known fault {fault.name!r}: " + "; ".join(problems))
    return fault


def _evidence_problems(fault: KnownFault) -> list[str]:
    """What is wrong with the evidence of a fault that explains Verdicts."""
    if fault.evidence not in EVIDENCE:
        return [f"no evidence {fault.evidence!r} (one of {', '.join(EVIDENCE)})"]
    if fault.evidence == CULPRIT and not fault.culprits:
        return ["culprit evidence names no culprits"]
    if fault.evidence == PREDICTION and not fault.predicts:
        return ["prediction evidence names no predictor"]
    return []


KNOWN_FAULTS: tuple[KnownFault, ...] = tuple(
    _fault(entry) for entry in json.loads((UPSTREAM / "known_faults.json").read_text())
)
# Each fault by its script's name.
FAULTS: dict[str, KnownFault] = {fault.script: fault for fault in KNOWN_FAULTS}
