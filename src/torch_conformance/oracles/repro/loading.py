"""How a script gets the op, and the op's fake, as the suite had them."""

from __future__ import annotations

import os
import re
import sys
import types
from pathlib import Path
from typing import Any, NamedTuple

import torch

from torch_conformance.oracles.core.schema import registering_modules
from torch_conformance.oracles.core.specification import Spec
from torch_conformance.oracles.repro.inliner import Inliner
from torch_conformance.oracles.repro.source import is_user_code, unwrap_user_function
from torch_conformance.oracles.repro.values import comment, literal, op_expression

# Namespaces torch registers itself: their ops need no library loaded.
_TORCH_NAMESPACES = frozenset(
    {
        "aten",
        "prims",
        "prim",
        "quantized",
        "_quantized",
        "quantized_decomposed",
        "c10d",
        "_c10d_functional",
        "_c10d_functional_autograd",
        "_dtensor",
        "inductor",
        "profiler",
        "mkldnn",
        "onednn",
        "mkl",
        "debugprims",
        "rngprims",
        "higher_order",
    }
)


def op_name(spec: Spec) -> str:
    overload = spec.overload
    if overload is not None:
        return str(overload)
    return getattr(spec.op, "__qualname__", repr(spec.op))


def _defining_module(qualname: str, search: bool = True) -> types.ModuleType | None:
    """The user's module that defines a Python op; ``search``: by a search of
    the sources too, where torch.library names none."""
    opdef = torch._library.custom_ops.OPDEFS.get(qualname)
    if opdef is not None:
        module = sys.modules.get(getattr(opdef._init_fn, "__module__", ""))
        if module is not None and is_user_code(module):
            return module
    # Where torch.library says the fake was registered from, before a search
    # of the sources (which finds a spec module naming the op, and a spec
    # module imports the suite).
    module = _registering_module(qualname)
    if module is not None or not search:
        return module
    name = qualname.partition("::")[2]
    patterns = (
        rf"""(define|custom_op)\(\s*["']{re.escape(qualname)}\b""",
        rf"""define\(\s*["']{re.escape(name)}\(""",
        rf"""["']{re.escape(qualname)}\b""",
    )
    files = {
        m.__name__: file
        for m in list(sys.modules.values())
        for file in [getattr(m, "__file__", None)]
        if isinstance(file, str) and file.endswith(".py") and is_user_code(m)
    }
    modules = [sys.modules[name] for name in files]
    texts = {}
    for name, file in files.items():
        try:
            texts[name] = Path(file).read_text()
        except OSError:
            continue
    for pattern in patterns:
        for module in modules:
            if re.search(pattern, texts.get(module.__name__, "")):
                return module
    return None


def _import_module_lines(module: types.ModuleType) -> list[str]:
    assert module.__file__ is not None, f"{module.__name__} has no file"
    return _module_lines(module, Path(module.__file__).resolve())


def _module_lines(module: types.ModuleType, file: Path) -> list[str]:
    parts = module.__name__.split(".")
    package = file.name == "__init__.py"
    expected = Path(*parts, "__init__.py") if package else Path(*parts[:-1], f"{parts[-1]}.py")
    if all(p.isidentifier() for p in parts) and str(file).endswith(str(expected)):
        root = file.parents[len(parts) if package else len(parts) - 1]
        return [
            f"sys.path.insert(0, {literal(str(root))})",
            f"importlib.import_module({literal(module.__name__)})",
        ]
    if file.stem.isidentifier():
        return [
            f"sys.path.insert(0, {literal(str(file.parent))})",
            f"importlib.import_module({literal(file.stem)})",
        ]
    return [
        f"_loader = importlib.util.spec_from_file_location({literal(file.stem)}, "
        f"{literal(str(file))})",
        "_loader.loader.exec_module(importlib.util.module_from_spec(_loader))",
    ]


def _interpreter_lines() -> list[str]:
    """Where the suite ran Triton's kernels in its interpreter, the script
    does too: Triton reads the switch as it defines a kernel, so it is set
    before the user's module loads."""
    if os.environ.get("TRITON_INTERPRET") != "1":
        return []
    return [
        "# The suite ran Triton's kernels in Triton's interpreter (no GPU runs them here).",
        'os.environ.setdefault("TRITON_INTERPRET", "1")',
    ]


class OpLoading(NamedTuple):
    lines: list[str]  # what makes the op available
    expression: str  # the op in the script
    module: types.ModuleType | None  # the user's module that defines it in Python
    registered: bool  # the script calls the function that registered it (its fake too)


def op_loading(spec: Spec, inliner: Inliner, differentiates: bool = False) -> OpLoading:
    """How the script makes the op available. A library op's kernels are
    loaded from the shared library, its fake copied; a script that
    differentiates it also needs its autograd formula, of which torch keeps
    no source to copy, so it calls the function that registered it
    (``prepare.registers``), as the spec's prepare did."""
    op = spec.resolve()
    overload = spec.overload
    if overload is None:
        name = inliner.name_of(op, getattr(op, "__name__", "op_function"), "the op")
        return OpLoading([], name or "None", None, False)
    expression = op_expression(overload)
    if isinstance(op, torch._ops.OpOverloadPacket):
        expression = expression.rpartition(".")[0]
    qualname = overload.name()
    python_defined = qualname in torch.library._defs or qualname in torch._library.custom_ops.OPDEFS
    if python_defined:
        module = _defining_module(qualname, search=False)
        installed = _installed_module(qualname) if module is None else None
        if installed is None and module is None:
            module = _defining_module(qualname)
        if installed is not None:
            lines = [
                comment(
                    f"{qualname} is defined in Python by {installed}, a module of an "
                    "installed package: the script imports it, as the suite did."
                ),
                *_interpreter_lines(),
                f"importlib.import_module({literal(installed)})",
            ]
            return OpLoading(lines, expression, None, False)
        if module is None:
            inliner.problems.append(
                f"the op's definition: {qualname} is defined in Python, but no loaded module "
                "of the user's defines it"
            )
            return OpLoading([], expression, None, False)
        lines = [
            comment(
                f"{qualname} is defined in Python by the user's own module "
                f"{module.__name__} ({module.__file__}): the script imports it, which "
                "defines the op and its kernel."
            ),
            *_interpreter_lines(),
            *_import_module_lines(module),
            *_registering_call(spec, module),
        ]
        return OpLoading(lines, expression, module, _registers(spec) is not None)
    if overload.namespace in _TORCH_NAMESPACES or not torch.ops.loaded_libraries:
        return OpLoading([], expression, None, False)
    if differentiates and _registers(spec) is not None:
        return OpLoading(_registering_call(spec), expression, None, True)
    lines = [
        comment(
            f"{qualname} is defined by a shared library, loaded here as the suite had it "
            "loaded. These are absolute paths on the machine that wrote this script: point "
            "them at your build of the library."
        )
    ]
    lines += [
        f"torch.ops.load_library({literal(path)})" for path in sorted(torch.ops.loaded_libraries)
    ]
    return OpLoading(lines, expression, None, False)


def _installed_module(qualname: str) -> str | None:
    """The module of an installed package (not the user's code, which the
    script copies or imports by path) that registers the op: importing it by
    name defines the op wherever the package is installed."""
    for name in registering_modules(qualname):
        module = sys.modules.get(name)
        if module is not None and getattr(module, "__file__", None) and not is_user_code(module):
            return name
    return None


def _registers(spec: Spec) -> tuple[str, str] | None:
    """A prepare that registers the op by a call rather than on import
    (``prepare.registers``: module and function): the script calls it too."""
    return getattr(spec.prepare, "registers", None)


def _registering_call(spec: Spec, imported: types.ModuleType | None = None) -> list[str]:
    """Lines that call the spec's registering function, as its prepare did
    before every check (it loads the op's library, fake and autograd
    formula); ``imported``, a module the script has imported already."""
    registers = _registers(spec)
    if registers is None:
        return []
    module = sys.modules[registers[0]]
    load = f"importlib.import_module({literal(registers[0])})"
    lines = [] if module is imported else _import_module_lines(module)
    if lines[-1:] == [load]:
        lines.pop()
    return [
        comment(
            f"{registers[0]}.{registers[1]}() registered the op before the check ran (its "
            "kernels, fake and autograd formula): the script calls it too."
        ),
        *lines,
        f"{load}.{registers[1]}()",
    ]


def _registered_by_call(spec: Spec) -> bool:
    """Whether the spec's registering function registered the fake the check
    used (torch.library keeps where each fake was registered)."""
    registers = _registers(spec)
    if registers is None or spec.fake is not None or spec.overload is None:
        return False
    name = spec.overload.name()
    kernel = torch._library.simple_registry.singleton.find(name).fake_impl.kernel
    source = str(getattr(kernel, "source", "")).rpartition(":")[0]
    file = getattr(sys.modules[registers[0]], "__file__", None)
    return bool(source and file) and Path(source).resolve() == Path(str(file)).resolve()


def _fake_of(spec: Spec) -> tuple[Any, str]:
    """The fake the check used (the spec's own, else the registered one) and whence."""
    if spec.fake is not None:
        return spec.fake, "the spec's own fake"
    overload = spec.overload
    if overload is None:
        return None, ""
    kernel = torch._library.simple_registry.singleton.find(overload.name()).fake_impl.kernel
    if kernel is None:
        return None, ""
    return kernel, f"the fake registered for it ({getattr(kernel, 'source', '?')})"


def _registering_module(qualname: str) -> types.ModuleType | None:
    """The user's module that registered the op's fake (torch.library keeps it)."""
    modules = [sys.modules[m] for m in registering_modules(qualname)]
    return next((m for m in modules if is_user_code(m) and getattr(m, "__file__", None)), None)


def fake_registration(spec: Spec, inliner: Inliner, loading: OpLoading) -> list[str]:
    """Lines that register the op's fake as the check had it, its code copied."""
    overload = spec.overload
    assert overload is not None, "a Python function has no fake to register"
    fake, whence = _fake_of(spec)
    if fake is None:
        return ["# The op has no Python fake registered (the check ran without one)."]
    if loading.registered and _registered_by_call(spec):
        return []
    defining_module = loading.module
    function = unwrap_user_function(fake)
    # A module defining the op in Python registers its own fake when imported.
    if (
        defining_module is not None
        and spec.fake is None
        and (
            function is None
            or Path(function.__code__.co_filename).resolve()
            == Path(defining_module.__file__ or "").resolve()
        )
    ):
        return []
    if function is None:
        # A fake an installed package registers (torch wraps it): importing
        # the package registers it where the script runs, as it did here.
        installed = _installed_module(overload.name())
        if installed is not None and spec.fake is None:
            load = f"importlib.import_module({literal(installed)})"
            return [
                comment(
                    f"The op's fake is registered by {installed}, a module of an installed "
                    "package, when it is imported."
                ),
                *([] if load in loading.lines else [load]),
            ]
        inliner.problems.append(
            f"the fake's source: {fake!r} is neither a Python function of the user's nor "
            "registered by an installed package"
        )
        return []
    if spec.fake is None and "<locals>" in function.__qualname__:
        # A fake made inside a function (in a loop over a registry's ops) has
        # no source of its own to copy: the module that registered it does it again.
        module = _registering_module(overload.name())
        if module is not None:
            return [
                comment(
                    f"The op's fake, {function.__qualname__}, is made inside a function: "
                    f"importing {module.__name__} ({module.__file__}), which registered it, "
                    "registers it again."
                ),
                *_import_module_lines(module),
            ]
    hint = function.__name__
    if hint in ("_", "<lambda>"):
        hint = f"{overload.name().partition('::')[2].replace('.', '_')}_fake"
    fake_name = inliner.name_of(function, hint, "the fake")
    return [
        f"# The op's fake: {whence}.",
        f"torch.library.register_fake({literal(overload.name())}, {fake_name})",
    ]
