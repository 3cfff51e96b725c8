"""The checks, one module each: a module that defines ``CHECK`` is a check.

Each ``CHECK`` (``oracles.judging.check.Check``) carries its judge, the Modes
it runs in, the Verdicts it may give, how its failure report is finished and
its repro script driver; the gate makes one test of every spec, check and
Mode from ``CHECKS``. Adding a check is adding its module; what checks
share lives in ``oracles.judging``, and no check imports another.

In the order a run takes them: ``reference`` (eager against the float64
reference), ``backward`` (eager gradients against float64's), ``fake``
(the fake against the kernel), ``schema`` (aliasing and writes against the
schema), ``compiled`` (the program eagerly and compiled),
``compiled_backward`` (its gradients compiled), ``programs`` (generated
programs around the op), ``domain_edges`` (just outside the declared
domain, never blocking).
"""

from __future__ import annotations

import dataclasses
import importlib
import pkgutil

from torch_conformance.oracles.judging.check import Check, sorted_checks


def _discovered() -> dict[str, Check]:
    found = []
    for info in pkgutil.iter_modules(__path__):
        module = importlib.import_module(f"{__name__}.{info.name}")
        check = getattr(module, "CHECK", None)
        if isinstance(check, Check):
            found.append(dataclasses.replace(check, name=info.name))
    return sorted_checks(found)


CHECKS: dict[str, Check] = _discovered()

__all__ = ["CHECKS", "Check"]
