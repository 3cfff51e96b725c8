"""The built-in catalog: the Specs of every family, found, not listed.

A family is a package under ``families/``; its ``specs`` module holds the
catalog's Specs and its ``zoo`` module, if any, its known-bad ones, and in
``FAULT_MODES`` any injected compiler faults: compiled Modes a run uses only
when it names them (``--modes=<name>``), never in a profile;
``suites.compiler_zoo`` holds those in the shapes of the known faults.
"""

from __future__ import annotations

import importlib
import pkgutil
from types import ModuleType

import torch_conformance.families
from torch_conformance.oracles.core.specification import Spec
from torch_conformance.oracles.modes.compiled import Compiled
from torch_conformance.oracles.runner.loading import validate


def family_modules(module: str) -> list[ModuleType]:
    """Each family's ``module`` (``specs`` or ``zoo``), where it has one."""
    found = []
    for family in sorted(
        info.name for info in pkgutil.iter_modules(torch_conformance.families.__path__)
    ):
        name = f"{torch_conformance.families.__name__}.{family}.{module}"
        if importlib.util.find_spec(name) is not None:
            found.append(importlib.import_module(name))
    return found


def specs_of(module: str) -> list[Spec]:
    return [validate(spec, m.__name__) for m in family_modules(module) for spec in m.SPECS]


def builtin_specs() -> list[Spec]:
    return specs_of("specs")


def fault_modes() -> dict[str, Compiled]:
    """Every injected compiler fault, the families' and the compiler zoo's
    (``suites.compiler_zoo``), by name."""
    from torch_conformance.suites import compiler_zoo

    modules = [compiler_zoo, *family_modules("zoo")]
    return {mode.name: mode for m in modules for mode in getattr(m, "FAULT_MODES", ())}
