"""What torch's registry says of an op: its fake, and whether a value fits its returns."""

from __future__ import annotations

import contextlib
import inspect
import sys
import types
from collections.abc import Callable
from typing import Any

import torch
from torch._library.utils import can_generate_trivial_fake_impl


def python_fake(op: torch._ops.OpOverload):
    """The op's Python fake (``register_fake``), or None."""
    return torch._library.simple_registry.singleton.find(op.name()).fake_impl.kernel


def fake_function(op: torch._ops.OpOverload) -> Callable | None:
    """The function registered as the op's Python fake, out of torch.library's
    wrappers (found through ``__wrapped__`` and closures), or None."""
    kernel = python_fake(op)
    queue: list[Any] = [None if kernel is None else kernel.func]
    seen: set[int] = set()
    while queue:
        function = queue.pop(0)
        if not callable(function) or id(function) in seen:
            continue
        seen.add(id(function))
        module = getattr(function, "__module__", None) or ""
        if isinstance(function, types.FunctionType) and module.partition(".")[0] != "torch":
            return function
        queue.append(getattr(function, "__wrapped__", None))
        for cell in getattr(function, "__closure__", None) or ():
            with contextlib.suppress(ValueError):  # a cell not yet filled
                queue.append(cell.cell_contents)
    return None


def registering_modules(name: str) -> list[str]:
    """The loaded modules that register the fake or Python kernel of op
    ``name`` (``ns::op``): torch.library keeps the module a fake was
    registered from (not a script run as ``__main__``, which no other process
    can import)."""
    kernel = torch._library.simple_registry.singleton.find(name).fake_impl.kernel
    functions = [None if kernel is None else kernel.func]
    definition = torch._library.custom_ops.OPDEFS.get(name)
    if definition is not None:
        functions.append(getattr(definition, "_init_fn", None))
    found: list[str] = []
    for function in functions:
        found += _modules_of(function)
    return list(dict.fromkeys([*found, *_dispatcher_modules(name)]))


def registered_files(name: str) -> dict[str, str]:
    """Per dispatch key (and ``debug``, where the op was defined), the file
    that registered op ``name``'s kernel there, as the dispatcher keeps it."""
    try:
        dump = torch._C._dispatch_dump(name)
    except RuntimeError:  # no such op
        return {}
    files = {}
    for line in dump.splitlines():
        key, found, rest = line.partition(": registered at ")
        if found:
            files[key.removesuffix("[alias]")] = rest.partition(" :: ")[0].rpartition(":")[0]
    return files


def _dispatcher_modules(name: str) -> list[str]:
    """The loaded modules whose files defined op ``name`` or registered its
    kernels (``Library.define`` and ``Library.impl``, which keep no function
    torch.library can name)."""
    by_file: dict[str, str] = {}
    for module_name, module in list(sys.modules.items()):
        file = getattr(module, "__file__", None)
        if file and module_name != "__main__" and module_name.partition(".")[0] != "torch":
            by_file.setdefault(str(file), module_name)
    files = dict.fromkeys(registered_files(name).values())
    return [by_file[f] for f in files if f in by_file]


def registration(op: torch._ops.OpOverload) -> str:
    """What registered ``op``'s fake, in words: ``register_fake``, a Meta
    kernel (``Library.impl``, or C++), a decomposition, or nothing."""
    files = registered_files(op.name())
    if python_fake(op) is not None:
        return "register_fake"
    if "Meta" in files:
        how = "Library.impl" if files["Meta"].endswith(".py") else "a loaded library"
        return f"a Meta kernel ({how})"
    if decomposes(op):
        return "CompositeImplicitAutograd (it decomposes)"
    kernels = [k for k in files if k != "debug"]
    return f"no fake; kernels for {', '.join(kernels) or 'no dispatch key'}"


def decomposes(op: torch._ops.OpOverload) -> bool:
    """The op is CompositeImplicitAutograd and nothing else: it decomposes into
    the ops its body calls before any dispatch mode, fake or compile sees it."""
    name = op.name()
    if not torch._C._dispatch_has_kernel_for_dispatch_key(name, "CompositeImplicitAutograd"):
        return False
    return not any(
        torch._C._dispatch_has_kernel_for_dispatch_key(name, key)
        for key in ("CompositeExplicitAutograd", "CPU", "CUDA", "Meta")
    )


def _modules_of(function: Any, depth: int = 3) -> list[str]:
    """Modules named by a function, the functions it wraps, and module names
    held in its closure."""
    if not callable(function) or depth == 0:
        return []
    names = [getattr(function, "__module__", None)]
    inner = [getattr(function, "__wrapped__", None)]
    for cell in getattr(function, "__closure__", None) or ():
        with contextlib.suppress(ValueError):  # a cell not yet filled
            value = cell.cell_contents
            (names if isinstance(value, str) else inner).append(value)
    found = [
        n for n in names if n in sys.modules and n != "__main__" and n.partition(".")[0] != "torch"
    ]
    for candidate in inner:
        found += _modules_of(candidate, depth - 1)
    return found


def signature_problem(op: torch._ops.OpOverload) -> str | None:
    """Why the op's Python fake cannot take the arguments its schema passes
    (so every call through torch raises TypeError), or None."""
    function = fake_function(op)
    if function is None:
        return None
    try:
        signature = inspect.signature(function)
    except (TypeError, ValueError):  # a builtin: nothing to read
        return None
    arguments = op._schema.arguments
    positional = [a.name for a in arguments if not a.kwarg_only]
    keywords = {a.name: None for a in arguments if a.kwarg_only}
    try:
        signature.bind(*positional, **keywords)
    except TypeError as error:
        names = ", ".join(a.name for a in arguments)
        return (
            f"the fake {function.__qualname__}{signature} cannot take the {len(arguments)} "
            f"argument(s) the schema passes ({names}): {error}. Every call through torch "
            "raises TypeError, so torch.compile fails: give the fake the schema's parameters, "
            "in its order"
        )
    return None


def _returns(op: torch._ops.OpOverload) -> str:
    return str(op._schema).rpartition(" -> ")[2]


def _matches(kind: Any, value: Any) -> bool:
    """``value`` fits schema type ``kind`` (a ``torch.Type``)."""
    if isinstance(kind, torch.OptionalType):
        return value is None or _matches(kind.getElementType(), value)
    if isinstance(kind, torch.TensorType):
        return isinstance(value, torch.Tensor)
    if isinstance(kind, torch.ListType):
        element = kind.getElementType()
        return isinstance(value, (list, tuple)) and all(_matches(element, v) for v in value)
    return not isinstance(value, (torch.Tensor, list, tuple)) and value is not None


def describe(value: Any) -> str:
    """A return value's structure in words: None, a Tensor, a tuple of 3 ..."""
    if value is None:
        return "None"
    if isinstance(value, torch.Tensor):
        return "a Tensor"
    if isinstance(value, (tuple, list)):
        kinds = ", ".join(
            "Tensor" if isinstance(v, torch.Tensor) else type(v).__name__ for v in value
        )
        return f"a {type(value).__name__} of {len(value)} ({kinds})"
    return f"a {type(value).__name__}"


def structure_problem(op: torch._ops.OpOverload, value: Any) -> str | None:
    """How the fake's return ``value`` breaks the schema's returns, or None."""
    returns = op._schema.returns
    if not returns:
        ok = value is None
    elif len(returns) == 1:
        ok = _matches(returns[0].type, value)
    else:
        ok = (
            isinstance(value, (tuple, list))
            and len(value) == len(returns)
            and all(_matches(r.type, v) for r, v in zip(returns, value, strict=True))
        )
    if ok:
        return None
    should = (
        f"return {_returns(op)}, as the kernel does, with its shapes, strides and aliasing"
        if returns
        else "return None"
    )
    return f"the schema declares -> {_returns(op)} but the fake returns {describe(value)}: {should}"


def fake_source(op: torch._ops.OpOverload) -> str | None:
    """What FakeTensor runs for ``op``, in words; None where nothing does."""
    name = op.name()
    if python_fake(op) is not None:
        return "a Python fake"
    for key, what in (("Meta", "a Meta kernel"), ("CompositeImplicitAutograd", "a decomposition")):
        if torch._C._dispatch_has_kernel_for_dispatch_key(name, key):
            return what
    if can_generate_trivial_fake_impl(op):
        return "the trivial fake torch makes for a mutating op that returns nothing"
    return None


def functionalization_problem(op: torch._ops.OpOverload) -> str | None:
    """Why torch.compile cannot functionalize ``op`` (a mutating op without a
    functional form it can derive), or None."""
    from torch._higher_order_ops.auto_functionalize import can_auto_functionalize

    schema = op._schema
    if not schema.is_mutable or can_auto_functionalize(op):
        return None
    if torch._C._dispatch_has_kernel_for_dispatch_key(op.name(), "Functionalize"):
        return None
    aliased = [str(r.type) for r in schema.returns if r.alias_info is not None]
    why = "its returns alias its written arguments" if aliased else "auto_functionalize refuses it"
    return (
        f"torch.compile cannot functionalize this mutating op ({why}): return () and let "
        "callers read the arguments it writes, or return fresh tensors"
    )
