"""Copying functions, classes and their helpers into a script, from their source."""

from __future__ import annotations

import ast
import builtins
import keyword
import sys
import types
from collections.abc import Iterable
from typing import Any

from torch_conformance.oracles.modes.cache import filled
from torch_conformance.oracles.repro.source import (
    Unrecoverable,
    class_names,
    class_source,
    function_source,
    global_names,
    is_user_code,
    lambda_source,
    loaded_names,
    location,
    module_attributes,
    rename,
)
from torch_conformance.oracles.repro.values import identifier, literal, literal_ok

# How deep the helpers of the copied code are followed and copied.
MAX_DEPTH = 4


class Inliner:
    """Copies functions, classes and their helpers into a script, once each,
    under names that do not collide; imports what comes from a library."""

    def __init__(self, reserved: Iterable[str]):
        self.imports: list[str] = []
        self.blocks: list[str] = []
        self.problems: list[str] = []
        self._names: dict[int, str] = {}
        self._keep: list[Any] = []  # keeps every id in _names alive
        self._constants: dict[tuple, str] = {}
        self._namespaces: dict[str, tuple[types.ModuleType, dict[str, str]]] = {}
        self._taken: set[str] = set(reserved)

    def bind(self, obj: Any, name: str) -> None:
        """``obj`` is already known in the script as ``name``."""
        self._names[id(obj)] = name
        self._keep.append(obj)
        self._taken.add(name)

    def _new_name(self, hint: str, module: str | None = None) -> str:
        base = hint if hint.isidentifier() and not keyword.iskeyword(hint) else "value"
        if base == "_":
            base = "helper"
        if base in self._taken and module:
            base = f"{base}_{module.rpartition('.')[2]}"
        return identifier(base, self._taken, "value")

    def _import(self, line: str) -> None:
        if line not in self.imports:
            self.imports.append(line)

    def name_of(
        self, obj: Any, hint: str, where: str, depth: int = 0, attributes: Iterable[str] = ()
    ) -> str | None:
        """The script's name for ``obj``, defining or importing it first.
        None (and a problem recorded) if it cannot be recovered."""
        known = self._names.get(id(obj))
        if known is not None and not isinstance(obj, types.ModuleType):
            return known
        if isinstance(obj, types.ModuleType):
            return self._module(obj, hint, where, depth, attributes)
        if isinstance(obj, types.FunctionType) and is_user_code(obj):
            return self._function(obj, hint, where, depth)
        if isinstance(obj, type) and is_user_code(obj):
            return self._class(obj, hint, where, depth)
        if isinstance(obj, (types.FunctionType, types.BuiltinFunctionType, type)):
            return self._library_object(obj, hint, where)
        if literal_ok(obj):
            key = (hint, literal(obj))
            if key not in self._constants:
                name = self._new_name(hint)
                self.blocks.append(f"{name} = {literal(obj)}\n")
                self._constants[key] = name
            return self._constants[key]
        self.problems.append(
            f"{where}'s source: it uses {hint!r}, a {type(obj).__name__} that cannot be "
            "copied into a script"
        )
        return None

    def _module(
        self, module: types.ModuleType, hint: str, where: str, depth: int, attributes: Iterable[str]
    ) -> str | None:
        if not is_user_code(module):
            name = self._names.get(id(module))
            if name is None:
                name = self._new_name(hint)
                self.bind(module, name)
                if "." not in module.__name__ and name == module.__name__:
                    self._import(f"import {name}")
                else:
                    self._import(f"import {module.__name__} as {name}")
            return name
        # The user's (or the suite's) module: its functions are copied, and
        # a namespace of the same name holds them.
        name = self._names.get(id(module))
        if name is None:
            name = self._new_name(hint)
            self.bind(module, name)
            self._namespaces[name] = (module, {})
        members = self._namespaces[name][1]
        for attribute in sorted(set(attributes) - members.keys()):
            if not hasattr(module, attribute):
                self.problems.append(
                    f"{where}'s source: {module.__name__}.{attribute} does not exist"
                )
                continue
            member = self.name_of(getattr(module, attribute), attribute, where, depth + 1)
            if member is not None:
                members[attribute] = member
        return name

    def _library_object(self, obj: Any, hint: str, where: str) -> str | None:
        if isinstance(obj, types.FunctionType) and obj.__code__.co_filename.startswith("<"):
            self.problems.append(
                f"{where}'s source: {obj.__qualname__} was defined in "
                f"{obj.__code__.co_filename}, whose text inspect cannot read"
            )
            return None
        module_name = getattr(obj, "__module__", None)
        module = sys.modules.get(module_name or "")
        for attribute in (getattr(obj, "__qualname__", None), getattr(obj, "__name__", None)):
            if attribute and "." not in attribute and getattr(module, attribute, None) is obj:
                name = self._new_name(hint)
                self.bind(obj, name)
                suffix = "" if name == attribute else f" as {name}"
                self._import(f"from {module_name} import {attribute}{suffix}")
                return name
        self.problems.append(
            f"{where}'s source: it uses {hint!r} ({obj!r}), which can be neither copied "
            "nor imported"
        )
        return None

    def _resolve(self, names: Iterable[str], scope: dict, where: str, depth: int, tree) -> dict:
        """The script's name for each of ``names`` found in ``scope``."""
        mapping = {}
        for used in sorted(names):
            if used in scope:
                value = scope[used]
            elif hasattr(builtins, used):
                continue
            else:
                self.problems.append(f"{where}'s source: it uses {used!r}, which is not defined")
                continue
            if depth >= MAX_DEPTH and isinstance(value, (types.FunctionType, type)):
                if is_user_code(value) and id(value) not in self._names:
                    self.problems.append(
                        f"{where}'s source: {used!r} is nested more than {MAX_DEPTH} helpers deep"
                    )
                    continue
            name = self.name_of(value, used, where, depth, module_attributes(tree, used))
            if name is not None:
                mapping[used] = name
        return mapping

    def _function(self, fn: types.FunctionType, hint: str, where: str, depth: int) -> str | None:
        is_lambda = fn.__name__ == "<lambda>"
        if hint in ("_", "<lambda>"):
            hint = "helper"
        name = self._new_name(hint, fn.__module__)
        self.bind(fn, name)
        try:
            if is_lambda:
                text = lambda_source(fn)
                text = f"{name} = {text}\n" if "\n" not in text else f"{name} = (\n{text}\n)\n"
            else:
                text = function_source(fn)
            tree = ast.parse(text)
            scope = dict(fn.__globals__)
            for var, cell in zip(fn.__code__.co_freevars, fn.__closure__ or (), strict=True):
                if filled(cell):
                    scope[var] = cell.cell_contents
            used = (loaded_names(tree) & global_names(fn)) - {name}
            mapping = self._resolve(used, scope, where, depth + 1, tree)
            definition = None if is_lambda else (fn.__name__, name)
            text = rename(text, mapping, definition)
        except Unrecoverable as error:
            self.problems.append(f"{where}'s source: {fn.__qualname__}: {error}")
            return name
        renamed = "" if name == fn.__name__ or is_lambda else f" (as {name})"
        if getattr(fn, "_dynamo_marked_constant", False):
            # Its decorator is stripped with the others, but Dynamo needs it.
            text = f"@torch._dynamo.assume_constant_result\n{text}"
        self.blocks.append(f"# {fn.__qualname__}, copied from {location(fn)}{renamed}\n{text}")
        return name

    def _class(self, cls: type, hint: str, where: str, depth: int) -> str | None:
        name = self._new_name(hint, cls.__module__)
        self.bind(cls, name)
        try:
            text, tree = class_source(cls)
            scope = dict(vars(sys.modules[cls.__module__]))
            used = class_names(tree, cls) - {name}
            mapping = self._resolve(used, scope, where, depth + 1, tree)
            text = rename(text, mapping, (cls.__name__, name))
        except Unrecoverable as error:
            self.problems.append(f"{where}'s source: {cls.__qualname__}: {error}")
            return name
        self.blocks.append(f"# {cls.__qualname__}, copied from {location(cls)}\n{text}")
        return name

    def code(self, start: int = 0) -> str:
        """The definitions copied from the ``start``-th on, then the namespaces
        standing for modules (call it before reading ``imports``: a namespace
        imports ``types``)."""
        parts = self.blocks[start:]
        for name, (module, members) in self._namespaces.items():
            namespace = self._module(types, "types", "a namespace", 0, ())
            items = ", ".join(f"{attribute}={member}" for attribute, member in members.items())
            parts.append(
                f"# stands for the module {module.__name__}, which the script does not import\n"
                f"{name} = {namespace}.SimpleNamespace({items})\n"
            )
        return join(parts)


def join(parts: Iterable[str]) -> str:
    """Top-level blocks of code, two blank lines apart."""
    return "\n\n\n".join(part.rstrip("\n") for part in parts)
