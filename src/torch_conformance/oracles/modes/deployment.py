"""The ways a deployment Mode runs a program instead of torch.compile
(``Compiled.deploy``; ``oracles.modes.deployed_program`` runs them).

Each is named once, here: its name is the deployment Mode's, the argument
of ``upstream/deployed.py`` (a standalone script, which a test holds to
these names) and what a known fault's ``deployed`` releases are keyed by;
``via`` is what a fault's facts say (``deployed by export``), the same for
a strict and a non-strict export.
"""

from __future__ import annotations

import dataclasses


@dataclasses.dataclass(frozen=True)
class Deployment:
    name: str
    via: str  # "export" or "aoti": how the program reaches the runtime
    strict: bool = False  # exported strictly: traced by Dynamo, not by running it on fakes
    packaged: bool = False  # the export compiled by AOTInductor, packaged, loaded and run


EXPORT = Deployment("export", "export")
EXPORT_STRICT = Deployment("export_strict", "export", strict=True)
AOTI = Deployment("aoti", "aoti", packaged=True)
DEPLOYMENTS = {d.name: d for d in (EXPORT, EXPORT_STRICT, AOTI)}
# What a fault's facts may say a deployment ran it by.
VIAS = tuple(dict.fromkeys(d.via for d in DEPLOYMENTS.values()))
