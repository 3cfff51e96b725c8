"""Loading spec modules: a file or a module's ``SPECS``, each validated."""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import re
import sys
from pathlib import Path
from typing import Any

from hypothesis.strategies import SearchStrategy

from torch_conformance.oracles.core.buffers import Case
from torch_conformance.oracles.core.devices import KINDS
from torch_conformance.oracles.core.kernel_domain import Domain
from torch_conformance.oracles.core.specification import Spec, SpecError
from torch_conformance.oracles.runner import dependencies, old_names

_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_.]*$")
_QUALNAME = re.compile(r"^\w+::\w+(\.\w+)?$")


def validate(spec: Any, where: str) -> Spec:
    """Return ``spec`` if well formed, else raise SpecError naming it."""
    if not isinstance(spec, Spec):
        raise SpecError(f"{where}: {spec!r} is a {type(spec).__name__}, not a Spec")
    label = f"spec {spec.name!r} ({where})"
    problems = []
    if not isinstance(spec.name, str) or not _NAME.match(spec.name):
        problems.append("name must be an identifier (letters, digits, _ and .)")
    if isinstance(spec.op, str):
        if not _QUALNAME.match(spec.op):
            problems.append(f"op {spec.op!r} is not a qualified name like 'namespace::name'")
    elif not callable(spec.op):
        problems.append(f"op {spec.op!r} is not callable")
    if not isinstance(spec.cases, SearchStrategy):
        problems.append(
            f"cases must be a Hypothesis strategy of Case, got {type(spec.cases).__name__}"
        )
    if spec.reference is not None and not callable(spec.reference):
        problems.append("reference must be callable or None")
    if not isinstance(spec.ulp_budget, int) or spec.ulp_budget < 0:
        problems.append(f"ulp_budget must be an int >= 0, got {spec.ulp_budget!r}")
    if not spec.bit_exact and spec.reference is None:
        problems.append("bit_exact=False needs a reference to judge against")
    if not callable(spec.program):
        problems.append("program must be callable as program(op, **args)")
    if isinstance(spec.families, str) or not all(isinstance(f, str) for f in spec.families):
        problems.append("families must be a tuple of strings")
    bad = [e for e in spec.examples if not isinstance(e, Case)]
    if bad:
        problems.append(f"examples must be Cases, got {type(bad[0]).__name__}")
    if spec.batches is not None and not callable(spec.batches):
        problems.append("batches must be callable as batches(n), or None")
    if spec.domain is not None and not isinstance(spec.domain, Domain):
        problems.append(f"domain must be an torch_conformance.domain.Domain, got {spec.domain!r}")
    if spec.fake is not None and not isinstance(spec.op, str) and spec.overload is None:
        problems.append("fake needs op to be a torch.ops overload")
    if isinstance(spec.grads, str) or not all(isinstance(g, str) for g in spec.grads):
        problems.append("grads must be a tuple of argument names")
    budget = spec.grad_ulp_budget
    if budget is not None and (not isinstance(budget, int) or budget < 0):
        problems.append(f"grad_ulp_budget must be an int >= 0 or None, got {budget!r}")
    if spec.grads and spec.reference is None:
        problems.append("grads needs a reference: gradients are judged against its float64 ones")
    devices = spec.devices
    if devices is not None and (
        isinstance(devices, str) or not devices or not set(devices) <= set(KINDS)
    ):
        problems.append(
            f"devices must be a tuple of {' and '.join(KINDS)}, or None, got {devices!r}"
        )
    if problems:
        raise SpecError(f"{label}: " + "; ".join(problems))
    return spec


def _import_file(path: Path) -> Any:
    """Import a spec file as pytest imports a test module: its folder on
    ``sys.path`` (so it imports its sibling modules) and registered in
    ``sys.modules`` under an importable name (Dynamo looks modules up by name)."""
    path = path.resolve()
    folder = str(path.parent)
    if folder not in sys.path:
        sys.path.insert(0, folder)
    name = path.stem
    existing = sys.modules.get(name)
    if existing is not None and Path(getattr(existing, "__file__", "") or "").resolve() == path:
        return existing
    if existing is not None or not name.isidentifier():
        digest = hashlib.sha256(str(path).encode()).hexdigest()[:8]
        stem = re.sub(r"\W", "_", path.stem)
        name = f"specs_{stem}_{digest}"
    found = importlib.util.spec_from_file_location(name, path)
    assert found is not None and found.loader is not None, f"{path} is no Python file"
    module = importlib.util.module_from_spec(found)
    sys.modules[name] = module
    try:
        found.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]
        raise
    return module


# The --import option of the command-line tools: modules (or functions of
# them) that register a library's ops.
IMPORT_OPTION: dict[str, Any] = {
    "dest": "modules",
    "action": "append",
    "default": [],
    "metavar": "MODULE[:FUNCTION]",
}


def import_registering(target: str) -> None:
    """Import ``MODULE``, or import ``MODULE:FUNCTION`` and call the function:
    a library that registers its ops when a function is called, not on import."""
    module, _, function = target.partition(":")
    imported = importlib.import_module(module)
    if function:
        getattr(imported, function)()


def load_specs(target: str) -> list[Spec]:
    """The specs of a spec module given as a file path or a module name."""
    old_names.install()
    path = Path(target)
    before = set(sys.modules)
    try:
        if path.suffix == ".py" or path.exists():
            if not path.is_file():
                raise SpecError(f"{target}: no such spec file")
            module = _import_file(path)
        else:
            module = importlib.import_module(target)
    except SpecError:
        raise
    except Exception as error:
        raise SpecError(f"{target}: importing the spec module failed: {error!r}") from error
    # What a verdict of these specs depends on: the modules of the user's
    # that loading them imported (the module itself too).
    # (Loaded again, the module imports nothing new: what it imported first stays.)
    imported = dependencies.user_modules([*(set(sys.modules) - before), module.__name__])
    dependencies.LOADED[target] = tuple(sorted({*dependencies.LOADED.get(target, ()), *imported}))
    specs = getattr(module, "SPECS", None)
    if specs is None:
        raise SpecError(f"{target}: defines no SPECS (a list of torch_conformance.spec.Spec)")
    loaded = [validate(spec, target) for spec in specs]
    names = [spec.name for spec in loaded]
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates:
        raise SpecError(f"{target}: spec names must be unique, repeated: {duplicates}")
    if not loaded:
        raise SpecError(f"{target}: SPECS is empty")
    return loaded
