"""The known compiler faults: ``upstream/known_faults.json``, beside each
fault's standalone reproduction, loaded and checked.

Each entry gives the fault's name and summary, the torch releases it
affects (version prefixes), its script (``upstream/<script>.py``), its
upstream issues and fixing pull requests, the Verdicts it explains, the
facts of a Situation it needs (``when``, words of ``engine.FACTS``) and its
witness (one of ``engine.WITNESSES``); ``tool`` says whose releases
``releases`` are (``torch``, the default, or ``triton`` for its
interpreter, whose faults are explained by its self-check instead, see
``oracles.triage.interpreter``, so they explain no Verdict here). A misspelt
Verdict, fact or witness stops the import with the entry's name.
"""

from __future__ import annotations

import json

from oracles.core.verdicts import VERDICTS
from oracles.triage.engine import FACTS, UPSTREAM, WITNESSES, KnownFault


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
        witness=entry["witness"],
        tool=entry.get("tool", "torch"),
    )
    problems = [
        *(f"no Verdict {v!r}" for v in sorted(fault.explains - set(VERDICTS))),
        *(f"no fact {f!r}" for f in sorted(fault.when - FACTS)),
        *(
            [f"no witness {fault.witness!r}"]
            if fault.witness not in WITNESSES and (fault.explains or fault.witness)
            else []
        ),
        *([f"no script {fault.repro}"] if not fault.path.is_file() else []),
    ]
    if problems:
        raise FaultEntryError(f"known fault {fault.name!r}: " + "; ".join(problems))
    return fault


KNOWN_FAULTS: tuple[KnownFault, ...] = tuple(
    _fault(entry) for entry in json.loads((UPSTREAM / "known_faults.json").read_text())
)
# Each fault by its script's name.
FAULTS: dict[str, KnownFault] = {fault.script: fault for fault in KNOWN_FAULTS}
