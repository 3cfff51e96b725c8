"""The built-in catalog: every family's Specs."""

from __future__ import annotations

from oracles.spec import Spec, validate
from suites import rope

FAMILIES = (rope,)


def builtin_specs() -> list[Spec]:
    return [validate(spec, module.__name__) for module in FAMILIES for spec in module.SPECS]
