"""The checks, one module each: a module that defines ``CHECK`` is a check.

Each ``CHECK`` (``oracles.checks.check.Check``) carries its judge, the Modes
it runs in, the Verdicts it may give, how its failure report is finished and
its repro script driver; the gate makes one test of every spec, check and
Mode from ``CHECKS``. Adding a check is adding its module.
"""

from __future__ import annotations

import dataclasses
import importlib
import pkgutil

from oracles.checks.check import Check, sorted_checks


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
