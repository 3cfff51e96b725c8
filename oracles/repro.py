"""Standalone repro scripts for a Case that fails a check.

``write_repro`` writes a Python script for one failing Case. The script
rebuilds the Case's buffers (same shapes, dtypes, fills and seed, so the same
values) and its argument views as plain torch calls, runs the op the way the
check did (eagerly, under FakeTensor, or compiled by Inductor, once per batch
with dynamic shapes where the check batched), prints what differs in the
words of the suite's Findings, and exits 1 while the bug is there and 0 when
everything agrees.

The script imports plain torch and whatever loads the op, never the suite:
the code under test (the spec's program, the op's fake, the reference and the
helpers they call) is copied into it from its source, so it can be pasted
into an upstream bug report. Code whose source cannot be recovered makes the
script stop at once with a ``SystemExit`` naming what is missing, never run
something else.
"""

from __future__ import annotations

import ast
import builtins
import dis
import inspect
import keyword
import math
import os as os_module
import platform
import re
import string
import sys
import sysconfig
import textwrap
import types
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import torch

from oracles import reference as reference_module
from oracles.case import DEFAULT, VIEW_OPS, Case, View
from oracles.signature import Constant, Size, batch_signature
from oracles.spec import Spec, SpecError

CHECKS = ("reference", "fake", "schema", "inductor")

# The suite's own packages: a script never imports them.
SUITE_PACKAGES = ("oracles", "kernels", "suites", "tests", "reports")
CHECKOUT = Path(__file__).resolve().parent.parent

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

# How deep the helpers of the spec's code are followed and copied.
_MAX_DEPTH = 4


class ReproError(ValueError):
    """A value the script cannot write down as Python."""


# ---------------------------------------------------------------------------
# Values as Python source


def literal(value: Any) -> str:
    """``value`` as Python source: ``float("nan")``, ``torch.bfloat16``, ..."""
    if isinstance(value, str):
        text = repr(value)
        if text.startswith("'") and '"' not in value:
            text = '"' + text[1:-1].replace("\\'", "'") + '"'
        return text
    if value is None or isinstance(value, bool):
        return repr(value)
    if isinstance(value, int):
        return repr(int(value))
    if isinstance(value, float):
        if math.isnan(value):
            return '-float("nan")' if math.copysign(1.0, value) < 0 else 'float("nan")'
        if math.isinf(value):
            return 'float("inf")' if value > 0 else 'float("-inf")'
        return repr(value)
    if isinstance(value, (torch.dtype, torch.layout, torch.memory_format)):
        return str(value)
    if isinstance(value, torch.device):
        return f"torch.device({str(value)!r})"
    if isinstance(value, torch._ops.OpOverload):
        return _op_expression(value)
    if isinstance(value, torch._ops.OpOverloadPacket):
        namespace, _, name = value._qualified_op_name.partition("::")
        return f"torch.ops.{namespace}.{name}"
    if isinstance(value, list):
        return "[" + ", ".join(literal(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{literal(k)}: {literal(v)}" for k, v in value.items()) + "}"
    if isinstance(value, tuple):
        items = [literal(v) for v in value]
        return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"
    raise ReproError(f"a {type(value).__name__} ({value!r}) cannot be written as Python")


def _literal_ok(value: Any) -> bool:
    try:
        literal(value)
    except ReproError:
        return False
    return True


def _op_expression(overload: torch._ops.OpOverload) -> str:
    name = overload._schema.name.partition("::")[2]
    return f"torch.ops.{overload.namespace}.{name}.{overload._overloadname}"


# ---------------------------------------------------------------------------
# Views as plain torch calls


def _param(value: Any) -> str:
    """A view parameter: a Size placeholder becomes the program's size input."""
    if isinstance(value, Size):
        return f"s{value.index}"
    if isinstance(value, tuple):
        items = [_param(v) for v in value]
        return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"
    if isinstance(value, list):
        return "[" + ", ".join(_param(v) for v in value) + "]"
    return literal(value)


def _shape_params(value: Any) -> str:
    """A shape given as a tuple, written as ``view(2, 3)`` does."""
    if isinstance(value, (tuple, list)):
        return ", ".join(_param(v) for v in value) if value else "()"
    return _param(value)


def view_expression(base: str, ops: tuple, ranks: Sequence[int]) -> str:
    """The view ``ops`` of ``base`` as a torch expression; ``ranks[i]`` is the
    rank of the tensor operation ``i`` applies to (a stepped slice needs it)."""
    expression = base
    for (name, *params), rank in zip(ops, ranks, strict=True):
        p = [_param(v) for v in params]
        if name == "split":
            sizes, dim, index = params
            expression = f"{expression}.split({_param(list(sizes))}, {p[1]})[{p[2]}]"
        elif name in ("view", "expand"):
            expression = f"{expression}.{name}({_shape_params(params[0])})"
        elif name == "permute":
            expression = f"{expression}.permute({_shape_params(params[0])})"
        elif name in ("narrow", "select", "unsqueeze", "squeeze", "transpose", "as_strided"):
            expression = f"{expression}.{name}({', '.join(p)})"
        elif name == "slice":
            dim, start, end, step = params
            prefix = ":, " * (dim % rank)
            expression = f"{expression}[{prefix}{_param(start)}:{_param(end)}:{_param(step)}]"
        else:  # pragma: no cover - check_view_ops refuses unknown operations
            raise ReproError(f"unknown view operation {name!r}")
    return expression


def _ranks(buffer: torch.Tensor, ops: tuple) -> list[int]:
    """The rank of the tensor each operation applies to."""
    ranks = []
    tensor = buffer
    for name, *params in ops:
        ranks.append(tensor.dim())
        tensor = VIEW_OPS[name].make(tensor, *params)
    return ranks


# ---------------------------------------------------------------------------
# Copying the spec's code into the script


def _library_roots() -> tuple[Path, ...]:
    paths = sysconfig.get_paths()
    roots = {Path(paths[key]).resolve() for key in ("stdlib", "platstdlib", "purelib", "platlib")}
    roots.add(Path(torch.__file__).resolve().parent)
    return tuple(roots)


_ROOTS = _library_roots()


def _is_library_file(file: str | None) -> bool:
    """Code of an installed library (torch, the standard library): imported, not copied."""
    if not file or file.startswith("<"):
        return True
    path = Path(file).resolve()
    return any(path.is_relative_to(root) for root in _ROOTS)


def _source_file(obj: Any) -> str | None:
    if isinstance(obj, types.FunctionType):
        return obj.__code__.co_filename
    if isinstance(obj, types.ModuleType):
        return getattr(obj, "__file__", None)
    try:
        return inspect.getsourcefile(obj) or inspect.getfile(obj)
    except (TypeError, OSError):
        return None


def _is_user_code(obj: Any) -> bool:
    file = _source_file(obj)
    return bool(file) and not file.startswith("<") and not _is_library_file(file)


def _where(obj: Any) -> str:
    """``path:line`` of ``obj``'s source, relative to the checkout when inside it."""
    file = _source_file(obj) or "?"
    path = Path(file)
    if path.is_absolute() and path.resolve().is_relative_to(CHECKOUT):
        file = str(path.resolve().relative_to(CHECKOUT))
    line = obj.__code__.co_firstlineno if isinstance(obj, types.FunctionType) else None
    if line is None:
        try:
            line = inspect.getsourcelines(obj)[1]
        except (OSError, TypeError):
            line = None
    return f"{file}:{line}" if line else file


def _filled(cell: types.CellType) -> bool:
    try:
        cell.cell_contents  # noqa: B018
    except ValueError:
        return False
    return True


def _codes(code: types.CodeType) -> Iterable[types.CodeType]:
    yield code
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield from _codes(const)


def _global_names(fn: types.FunctionType) -> set[str]:
    """Names ``fn`` (and the lambdas, comprehensions and functions inside it)
    look up outside itself."""
    names: set[str] = set()
    for code in _codes(fn.__code__):
        names.update(
            instruction.argval
            for instruction in dis.get_instructions(code)
            if instruction.opname in ("LOAD_GLOBAL", "LOAD_NAME")
        )
    names.update(fn.__code__.co_freevars)
    return names


def _loaded_names(tree: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def _module_attributes(tree: ast.AST, name: str) -> set[str]:
    """The attributes read as ``name.attribute`` in ``tree``."""
    return {
        n.attr
        for n in ast.walk(tree)
        if isinstance(n, ast.Attribute)
        and isinstance(n.value, ast.Name)
        and n.value.id == name
        and isinstance(n.ctx, ast.Load)
    }


class Unrecoverable(Exception):
    """The source of a piece of code cannot be recovered."""


def _signature_key(code: types.CodeType) -> tuple:
    return (
        code.co_argcount,
        code.co_kwonlyargcount,
        code.co_flags & (inspect.CO_VARARGS | inspect.CO_VARKEYWORDS),
        code.co_varnames[: code.co_argcount + code.co_kwonlyargcount + 2],
        frozenset(name for c in _codes(code) for name in c.co_names) | frozenset(code.co_freevars),
    )


def lambda_source(fn: types.FunctionType) -> str:
    """The text of a lambda, cut from the statement ``inspect`` returns for it."""
    try:
        text = textwrap.dedent(inspect.getsource(fn))
    except (OSError, TypeError) as error:
        raise Unrecoverable(f"inspect could not find it ({error})") from error
    want = _signature_key(fn.__code__)
    for match in re.finditer(r"\blambda\b", text):
        for end in range(len(text), match.start(), -1):
            piece = text[match.start() : end].rstrip()
            if not piece or piece[-1] in ",;":
                continue
            try:
                tree = ast.parse(f"(\n{piece}\n)", mode="eval")
            except SyntaxError:
                continue
            if not isinstance(tree.body, ast.Lambda):
                continue  # e.g. the lambda and what follows it, as a tuple
            code = compile(tree, "<lambda>", "eval")
            inner = [c for c in code.co_consts if isinstance(c, types.CodeType)]
            # Cut out on its own, a lambda reads as globals what were its closure's names.
            got = _signature_key(inner[0]) if inner else None
            if got is not None and got[:4] == want[:4] and got[4] <= want[4]:
                return _strip_comment(piece)
            break  # the longest lambda starting here is another one
    raise Unrecoverable(
        f"{fn.__qualname__} is a lambda inside an expression that could not be cut out: {text!r}"
    )


def _strip_comment(piece: str) -> str:
    """A lambda's text without a trailing comment on its last line."""
    lines = piece.splitlines()
    for cut in range(len(lines[-1]), 0, -1):
        if lines[-1][cut - 1] != "#":
            continue
        candidate = "\n".join([*lines[:-1], lines[-1][: cut - 1].rstrip()])
        try:
            tree = ast.parse(f"(\n{candidate}\n)", mode="eval")
        except SyntaxError:
            continue
        if isinstance(tree.body, ast.Lambda):
            return candidate
    return piece


def function_source(fn: types.FunctionType) -> str:
    """A function's source, dedented, its decorators stripped."""
    try:
        text = textwrap.dedent(inspect.getsource(fn))
    except (OSError, TypeError) as error:
        raise Unrecoverable(f"inspect could not find it ({error})") from error
    try:
        tree = ast.parse(text)
    except SyntaxError as error:
        raise Unrecoverable(f"its source does not parse on its own ({error.msg})") from error
    node = tree.body[0] if tree.body else None
    if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) or node.name != fn.__name__:
        raise Unrecoverable(f"the source inspect gives is not the definition of {fn.__name__}")
    return "".join(text.splitlines(keepends=True)[node.lineno - 1 :])


def rename(text: str, mapping: dict[str, str], definition: tuple[str, str] | None = None) -> str:
    """``text`` with the names it reads renamed by ``mapping``, and the
    top-level definition ``definition[0]`` renamed ``definition[1]``."""
    mapping = {old: new for old, new in mapping.items() if old != new}
    if definition is not None and definition[0] == definition[1]:
        definition = None
    if not mapping and definition is None:
        return text
    tree = ast.parse(text)
    lines = [line.encode() for line in text.splitlines(keepends=True)]
    edits = [
        (node.lineno, node.col_offset, node.end_col_offset, node.id)
        for node in ast.walk(tree)
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id in mapping
    ]
    for lineno, start, end, old in sorted(edits, reverse=True):
        raw = lines[lineno - 1]
        if raw[start:end] != old.encode():
            raise Unrecoverable(f"could not rename {old!r} in its source (at line {lineno})")
        lines[lineno - 1] = raw[:start] + mapping[old].encode() + raw[end:]
    result = b"".join(lines).decode()
    if definition is not None:
        old, new = definition
        result, count = re.subn(
            rf"^(\s*(?:async\s+)?(?:def|class)\s+){re.escape(old)}\b",
            lambda m: m.group(1) + new,
            result,
            count=1,
            flags=re.MULTILINE,
        )
        if not count:
            raise Unrecoverable(f"could not rename the definition of {old!r}")
    check = _loaded_names(ast.parse(result))
    if any(old in check for old in mapping if old not in mapping.values()):
        raise Unrecoverable("renaming the names its source reads failed")
    return result


def _class_names(tree: ast.AST, cls: type) -> set[str]:
    """Names a class reads at class level (annotations aside) or in its methods."""
    stored: set[str] = set()
    loaded: set[str] = set()

    class Visitor(ast.NodeVisitor):
        def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
            for decorator in node.decorator_list:
                self.visit(decorator)
            stored.add(node.name)

        visit_AsyncFunctionDef = visit_FunctionDef

        def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
            if node.value is not None:
                self.visit(node.value)
            if isinstance(node.target, ast.Name):
                stored.add(node.target.id)

        def visit_Name(self, node: ast.Name) -> None:
            (loaded if isinstance(node.ctx, ast.Load) else stored).add(node.id)

    top = tree.body[0]
    for decorator in top.decorator_list:
        Visitor().visit(decorator)
    for base in top.bases:
        Visitor().visit(base)
    for statement in top.body:
        Visitor().visit(statement)
    file = _source_file(cls)
    methods = _loaded_names(tree)
    for value in vars(cls).values():
        if isinstance(value, (staticmethod, classmethod)):
            value = value.__func__
        if isinstance(value, types.FunctionType) and value.__code__.co_filename == file:
            loaded.update(_global_names(value) & methods)
    return loaded - stored


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
        if base not in self._taken:
            self._taken.add(base)
            return base
        if module:
            base = f"{base}_{module.rpartition('.')[2]}"
        name, number = base, 2
        while name in self._taken:
            name, number = f"{base}_{number}", number + 1
        self._taken.add(name)
        return name

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
        if isinstance(obj, types.FunctionType) and _is_user_code(obj):
            return self._function(obj, hint, where, depth)
        if isinstance(obj, type) and _is_user_code(obj):
            return self._class(obj, hint, where, depth)
        if isinstance(obj, (types.FunctionType, types.BuiltinFunctionType, type)):
            return self._library_object(obj, hint, where)
        if _literal_ok(obj):
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
        if not _is_user_code(module):
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
            if depth >= _MAX_DEPTH and isinstance(value, (types.FunctionType, type)):
                if _is_user_code(value) and id(value) not in self._names:
                    self.problems.append(
                        f"{where}'s source: {used!r} is nested more than {_MAX_DEPTH} helpers deep"
                    )
                    continue
            name = self.name_of(value, used, where, depth, _module_attributes(tree, used))
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
                if _filled(cell):
                    scope[var] = cell.cell_contents
            used = (_loaded_names(tree) & _global_names(fn)) - {name}
            mapping = self._resolve(used, scope, where, depth + 1, tree)
            definition = None if is_lambda else (fn.__name__, name)
            text = rename(text, mapping, definition)
        except Unrecoverable as error:
            self.problems.append(f"{where}'s source: {fn.__qualname__}: {error}")
            return name
        renamed = "" if name == fn.__name__ or is_lambda else f" (as {name})"
        self.blocks.append(f"# {fn.__qualname__}, copied from {_where(fn)}{renamed}\n{text}")
        return name

    def _class(self, cls: type, hint: str, where: str, depth: int) -> str | None:
        name = self._new_name(hint, cls.__module__)
        self.bind(cls, name)
        try:
            try:
                text = textwrap.dedent(inspect.getsource(cls))
                tree = ast.parse(text)
            except (OSError, TypeError, SyntaxError) as error:
                raise Unrecoverable(f"inspect could not find it ({error})") from error
            if not tree.body or not isinstance(tree.body[0], ast.ClassDef):
                raise Unrecoverable("the source inspect gives is not a class definition")
            scope = dict(vars(sys.modules[cls.__module__]))
            used = _class_names(tree, cls) - {name}
            mapping = self._resolve(used, scope, where, depth + 1, tree)
            text = rename(text, mapping, (cls.__name__, name))
        except Unrecoverable as error:
            self.problems.append(f"{where}'s source: {cls.__qualname__}: {error}")
            return name
        self.blocks.append(f"# {cls.__qualname__}, copied from {_where(cls)}\n{text}")
        return name

    def code(self) -> str:
        """Every copied definition, then the namespaces standing for modules
        (call it before reading ``imports``: a namespace imports ``types``)."""
        parts = list(self.blocks)
        for name, (module, members) in self._namespaces.items():
            namespace = self._module(types, "types", "a namespace", 0, ())
            items = ", ".join(f"{attribute}={member}" for attribute, member in members.items())
            parts.append(
                f"# stands for the module {module.__name__}, which the script does not import\n"
                f"{name} = {namespace}.SimpleNamespace({items})\n"
            )
        return "\n\n\n".join(part.rstrip("\n") for part in parts)


def unwrap_user_function(fn: Any) -> types.FunctionType | None:
    """The user's function behind a registered fake (through ``.func``,
    ``__wrapped__``, closures and a custom op's ``_abstract_fn``), or None."""
    queue, seen = [fn], set()
    while queue and len(seen) < 64:
        candidate = queue.pop(0)
        if candidate is None or id(candidate) in seen:
            continue
        seen.add(id(candidate))
        if isinstance(candidate, types.FunctionType) and _is_user_code(candidate):
            return candidate
        queue += [
            getattr(candidate, name, None) for name in ("__wrapped__", "func", "_abstract_fn")
        ]
        if isinstance(candidate, types.FunctionType):
            queue += [
                cell.cell_contents
                for cell in candidate.__closure__ or ()
                if _filled(cell) and callable(cell.cell_contents)
            ]
    return None


# ---------------------------------------------------------------------------
# How the script gets the op


def _defining_module(qualname: str) -> types.ModuleType | None:
    """The user's module that defines a Python op."""
    opdef = torch._library.custom_ops.OPDEFS.get(qualname)
    if opdef is not None:
        module = sys.modules.get(getattr(opdef._init_fn, "__module__", ""))
        if module is not None and _is_user_code(module):
            return module
    name = qualname.partition("::")[2]
    patterns = (
        rf"""(define|custom_op)\(\s*["']{re.escape(qualname)}\b""",
        rf"""define\(\s*["']{re.escape(name)}\(""",
        rf"""["']{re.escape(qualname)}\b""",
    )
    modules = [
        m
        for m in list(sys.modules.values())
        if isinstance(getattr(m, "__file__", None), str)
        and m.__file__.endswith(".py")
        and _is_user_code(m)
    ]
    texts = {}
    for module in modules:
        try:
            texts[module.__name__] = Path(module.__file__).read_text()
        except OSError:
            continue
    for pattern in patterns:
        for module in modules:
            if re.search(pattern, texts.get(module.__name__, "")):
                return module
    return None


def _import_module_lines(module: types.ModuleType) -> list[str]:
    file = Path(module.__file__).resolve()
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


def _op_loading(spec: Spec, inliner: Inliner) -> tuple[list[str], str, types.ModuleType | None]:
    """Lines that make the op available, its expression in the script, and
    the user's module that defines it in Python (None for a library op)."""
    op = spec.resolve()
    overload = spec.overload
    if overload is None:
        name = inliner.name_of(op, getattr(op, "__name__", "op_function"), "the op")
        return [], name or "None", None
    expression = _op_expression(overload)
    if isinstance(op, torch._ops.OpOverloadPacket):
        expression = expression.rpartition(".")[0]
    qualname = overload._schema.name
    python_defined = qualname in torch.library._defs or qualname in torch._library.custom_ops.OPDEFS
    if python_defined:
        module = _defining_module(qualname)
        if module is None:
            inliner.problems.append(
                f"the op's definition: {qualname} is defined in Python, but no loaded module "
                "of the user's defines it"
            )
            return [], expression, None
        lines = [
            _comment(
                f"{qualname} is defined in Python by the user's own module "
                f"{module.__name__} ({module.__file__}): the script imports it, which "
                "defines the op and its kernel."
            ),
            *_import_module_lines(module),
        ]
        return lines, expression, module
    if overload.namespace in _TORCH_NAMESPACES or not torch.ops.loaded_libraries:
        return [], expression, None
    lines = [
        _comment(
            f"{qualname} is defined by a shared library, loaded here as the suite had it "
            "loaded. These are absolute paths on the machine that wrote this script: point "
            "them at your build of the library."
        )
    ]
    lines += [
        f"torch.ops.load_library({literal(path)})" for path in sorted(torch.ops.loaded_libraries)
    ]
    return lines, expression, None


def _fake_of(spec: Spec) -> tuple[Any, str]:
    """The fake the check used (the spec's own, else the registered one) and whence."""
    if spec.fake is not None:
        return spec.fake, "the spec's own fake"
    overload = spec.overload
    if overload is None:
        return None, ""
    kernel = torch._library.simple_registry.singleton.find(overload._schema.name).fake_impl.kernel
    if kernel is None:
        return None, ""
    return kernel, f"the fake registered for it ({getattr(kernel, 'source', '?')})"


# ---------------------------------------------------------------------------
# The script's own helpers: the suite's verdicts, in plain torch

_HELPERS: dict[str, tuple[tuple[str, ...], tuple[str, ...], str]] = {
    # name: (helpers it needs, imports, code)
    "flatten": (
        (),
        (),
        '''
def flatten(result):
    """The outputs as a tuple; None when the call returned None."""
    if result is None:
        return None
    return tuple(result) if isinstance(result, (tuple, list)) else (result,)
''',
    ),
    "error_text": (
        (),
        (),
        """
def error_text(error, lines=3):
    text = str(error).strip().splitlines()
    return f"{type(error).__name__}: " + " / ".join(text[:lines])
""",
    ),
    "report": (
        (),
        (),
        '''
def report(problems, agreement):
    """Print what differs; 1 while the bug is there, 0 when everything agrees."""
    for line in problems[:12]:
        print(line)
    if len(problems) > 12:
        print(f"... and {len(problems) - 12} more")
    if problems:
        print(f"FAILED: {len(problems)} difference(s)")
        return 1
    print(f"OK: {agreement}")
    return 0
''',
    ),
    "structure": (
        (),
        (),
        '''
def structure(real, other, other_mode, real_mode):
    """The same number of outputs, and None where the other gives None."""

    def shape_of(outputs):
        if outputs is None:
            return "None"
        kinds = ["Tensor" if isinstance(o, torch.Tensor) else type(o).__name__ for o in outputs]
        return f"{len(outputs)} output(s) ({', '.join(kinds)})"

    if shape_of(real) == shape_of(other):
        return []
    return [
        f"[outputs] the {real_mode} returns {shape_of(real)} but the {other_mode} "
        f"returns {shape_of(other)}"
    ]
''',
    ),
    "metadata": (
        (),
        (),
        '''
def metadata(label, real, other, other_mode, real_mode):
    """Shape, dtype, device, strides (of dimensions of size > 1) and storage offset."""
    found = []
    for what, want, got in (
        ("shape", tuple(real.shape), tuple(other.shape)),
        ("dtype", real.dtype, other.dtype),
        ("device", real.device.type, other.device.type),
    ):
        if want != got:
            found.append(
                f"[metadata] {label}.{what}={got} in the {other_mode}, "
                f"but the {real_mode} gives {want}"
            )
    if found:
        return found
    # A stride of a dimension of size 1 is never used to reach an element.
    if any(real.stride(d) != other.stride(d) for d in range(real.dim()) if real.shape[d] > 1):
        found.append(
            f"[metadata] {label}.stride()={tuple(other.stride())} in the {other_mode}, "
            f"but the {real_mode} gives {tuple(real.stride())}"
        )
    if real.storage_offset() != other.storage_offset():
        found.append(
            f"[metadata] {label}.storage_offset()={other.storage_offset()} in the "
            f"{other_mode}, but the {real_mode} gives {real.storage_offset()}"
        )
    return found
''',
    ),
    "aliases": (
        (),
        ("from torch.multiprocessing.reductions import StorageWeakRef",),
        '''
def aliases(output, args):
    """Which tensor arguments the output is, or shares storage with."""
    found = {}
    storage = StorageWeakRef(output.untyped_storage())
    for name, arg in args.items():
        if not isinstance(arg, torch.Tensor):
            continue
        if StorageWeakRef(arg.untyped_storage()) != storage:
            continue
        same_view = (
            arg.shape == output.shape
            and arg.stride() == output.stride()
            and arg.storage_offset() == output.storage_offset()
        )
        found[name] = "is" if same_view else "shares storage with"
    return found


def alias_text(found):
    if not found:
        return "is a fresh tensor"
    same = [name for name, how in found.items() if how == "is"]
    if same:
        return " and ".join(f"is the input {name!r}" for name in same)
    return "shares storage with " + " and ".join(repr(name) for name in found)
''',
    ),
    "aliasing": (
        ("aliases",),
        (),
        '''
def aliasing(label, real, real_args, other, other_args, other_mode, real_mode):
    """The output aliases the same inputs, the same way, in both runs."""
    want, got = aliases(real, real_args), aliases(other, other_args)
    if want == got:
        return []
    return [
        f"[aliasing] {label} {alias_text(want)} in the {real_mode}, but {alias_text(got)} "
        f"in the {other_mode}"
    ]
''',
    ),
    "bits": (
        (),
        (),
        '''
BITS = {1: torch.uint8, 2: torch.int16, 4: torch.int32, 8: torch.int64}


def bits(tensor):
    """The raw bits, so NaN equals NaN and -0.0 differs from 0.0."""
    if tensor.dtype == torch.bool:
        return tensor
    return tensor.contiguous().view(BITS[tensor.element_size()])


def index_of(flat, shape):
    index = []
    for size in reversed(shape):
        index.append(flat % size if size else 0)
        flat //= size if size else 1
    return index[::-1]
''',
    ),
    "bit_exact": (
        ("bits",),
        (),
        '''
def bit_exact(label, got, want, got_mode, want_mode):
    """got must equal want bit for bit."""
    if got.shape != want.shape or got.dtype != want.dtype:
        return [
            f"[values] {label} is {got.dtype}{list(got.shape)} in {got_mode} but "
            f"{want.dtype}{list(want.shape)} in {want_mode}"
        ]
    differ = (bits(got) != bits(want)).reshape(-1)
    count = int(differ.sum())
    if not count:
        return []
    first = int(differ.nonzero()[0])
    return [
        f"[values] {label}: {count} of {got.numel()} elements differ bit for bit between "
        f"{got_mode} and {want_mode} (first at {index_of(first, got.shape)}: "
        f"{got.reshape(-1)[first].item()!r} vs {want.reshape(-1)[first].item()!r})"
    ]
''',
    ),
    "within_ulps": (
        ("bit_exact", "ulp_error"),
        (),
        '''
def within_ulps(label, got, expected, budget, mode):
    """got must lie within budget ULPs of the float64 reference."""
    if tuple(got.shape) != tuple(expected.value.shape):
        return [
            f"[values] {label} has shape {list(got.shape)} in {mode} but the reference "
            f"gives {list(expected.value.shape)}"
        ]
    if not got.is_floating_point():
        return bit_exact(label, got, expected.value.to(got.dtype), mode, "the reference")
    error = ulp_error(got, expected).reshape(-1)
    count = int((error > budget).sum())
    if not count:
        return []
    worst = int(error.argmax())
    return [
        f"[values] {label}: {count} of {got.numel()} elements are more than {budget} "
        f"ULP from the float64 reference in {mode} (worst {float(error[worst]):.3g} "
        f"ULP at {index_of(worst, got.shape)}: got {got.reshape(-1)[worst].item()!r}, "
        f"reference {expected.value.reshape(-1)[worst].item()!r}) [ULP budget {budget}]"
    ]
''',
    ),
    "run_fake": (
        ("flatten",),
        ("from torch._subclasses.fake_tensor import FakeTensorMode",),
        '''
def run_fake(case):
    """The op under FakeTensorMode on the same views of fake buffers: views of
    one buffer share its fake storage, as the real views share the buffer."""
    mode = FakeTensorMode()
    fake_buffers = {name: mode.from_tensor(b) for name, b in allocate(case).items()}
    with mode:
        fake_args = arguments(*fake_buffers.values(), *case["sizes"])
        return fake_args, flatten(op(**fake_args))
''',
    ),
    "schema_aliasing": (
        ("aliases",),
        (),
        '''
def schema_aliasing(schema, outputs, args, mode):
    """Every output aliases exactly what the schema's annotations declare."""
    declared_inputs = {
        frozenset(a.alias_info.before_set): a.name
        for a in schema.arguments
        if a.alias_info is not None
    }
    found = []
    for i, (ret, out) in enumerate(zip(schema.returns, outputs or ())):
        if not isinstance(out, torch.Tensor):
            continue
        real = aliases(out, args)
        if ret.alias_info is None:
            if real:
                found.append(
                    f"[schema] out[{i}] of the {mode} {alias_text(real)} but the schema "
                    f"`{schema}` declares no alias for it: annotate both as Tensor(a!) or "
                    "return a clone"
                )
            continue
        name = declared_inputs.get(frozenset(ret.alias_info.before_set))
        if name is not None and name not in real:
            found.append(
                f"[schema] the schema `{schema}` declares out[{i}] aliases the input "
                f"{name!r}, but the {mode} returns {alias_text(real)}"
            )
    return found
''',
    ),
    "writes": (
        ("bits", "ulp_error"),
        (),
        '''
def writes(before, after, args, footprints, declared, expectation, budget):
    """Every buffer before and after the call against what the op may write.
    footprints: argument -> (its buffer, flat indices of the elements it covers)."""
    found = []
    for buffer_name, old in before.items():
        changed = (bits(old) != bits(after[buffer_name])).reshape(-1)
        on_buffer = {n: idx for n, (b, idx) in footprints.items() if b == buffer_name}
        covered = torch.zeros_like(changed)
        writable = torch.zeros_like(changed)
        for name, idx in on_buffer.items():
            covered[idx] = True
            if name in declared:
                writable[idx] = True
        for name, idx in on_buffer.items():
            if name in declared:
                continue
            hit = changed[idx] & ~writable[idx]
            if hit.any():
                found.append(
                    f"[writes] the op wrote {int(hit.sum())} element(s) of {name!r}, which "
                    "its schema declares read-only: annotate it Tensor(a!) or stop writing it"
                )
        outside = changed & ~covered
        if outside.any():
            first = int(outside.nonzero()[0])
            found.append(
                f"[writes] the op wrote {int(outside.sum())} element(s) of buffer "
                f"{buffer_name!r} outside every argument's view (first at "
                f"{index_of(first, old.shape)} of its {list(old.shape)}): a write past "
                "the end of a slice"
            )
        for name in declared & on_buffer.keys():
            expected = (expectation.writes if expectation else {}).get(name)
            if expected is None or changed[on_buffer[name]].any():
                continue
            if (ulp_error(args[name], expected) > budget).any():
                found.append(
                    f"[writes] the schema declares {name!r} written and the reference "
                    "changes it, but the op left every element of it as it was"
                )
    return found
''',
    ),
    "expected_program": (
        ("flatten",),
        (),
        '''
def expected_program(case):
    """The program in float64 with the op replaced by the reference's values
    (then, in a second run, their scales): the expected outputs and buffers."""
    originals = allocate(case)
    expectation = $reference(**arguments(*originals.values(), *case["sizes"]))
    runs = []
    for field in ("value", "scale"):
        buffers = {
            name: (b.to(torch.float64) if b.is_floating_point() else b.clone())
            for name, b in originals.items()
        }
        if field == "scale":
            buffers = {n: (b.abs() if b.is_floating_point() else b) for n, b in buffers.items()}

        def stand_in(**args):
            for name, expected in expectation.writes.items():
                args[name].copy_(getattr(expected, field))
            outputs = tuple(getattr(e, field) for e in expectation.outputs)
            if not outputs:
                return None
            return outputs[0] if len(outputs) == 1 else outputs

        result = $program(stand_in, **arguments(*buffers.values(), *case["sizes"]))
        runs.append((flatten(result), buffers))
    (values, value_buffers), (scales, scale_buffers) = runs
    outputs = None
    if values is not None:
        outputs = tuple(
            $Expected(v.to(torch.float64), s.to(torch.float64).abs())
            for v, s in zip(values, scales)
        )
    buffers = {
        name: $Expected(
            value_buffers[name].to(torch.float64), scale_buffers[name].to(torch.float64).abs()
        )
        for name in value_buffers
    }
    return outputs, buffers
''',
    ),
}

# Helpers copied from oracles/reference.py rather than written here.
_COPIED_HELPERS = {"ulp_error": reference_module.ulp_error}


def _helper_order(wanted: Iterable[str]) -> list[str]:
    order: list[str] = []

    def visit(name: str) -> None:
        if name in order or name in _COPIED_HELPERS:
            return
        for dependency in _HELPERS[name][0]:
            visit(dependency)
        order.append(name)

    wanted = set(wanted)
    for name in _HELPERS:
        if name in wanted:
            visit(name)
    return order


def _needed_copies(names: Iterable[str]) -> set[str]:
    needed = set()
    for name in _helper_order(names):
        needed.update(d for d in _HELPERS[name][0] if d in _COPIED_HELPERS)
    return needed


# The names the script defines itself; copied code gets other names.
_RESERVED = {
    "os",
    "sys",
    "torch",
    "importlib",
    "op",
    "OP_NAME",
    "BUDGET",
    "CASES",
    "VIEWS",
    "STATIC_DIMS",
    "DYNAMIC",
    "allocate",
    "arguments",
    "model",
    "main",
    "alias_text",
    "BITS",
    "index_of",
    "FakeTensorMode",
    "StorageWeakRef",
    "compare",
    "_loader",
} | set(_HELPERS)


# ---------------------------------------------------------------------------
# The script's main part for each check

_MAIN = {
    "fake": """
def main():
    case = CASES[0]
    buffers = allocate(case)
    args = arguments(*buffers.values(), *case["sizes"])
    try:
        real = flatten(op(**args))
    except Exception as error:
        print(f"[crash] {OP_NAME} raised in eager mode: {error_text(error)}")
        return 1
    try:
        fake_args, fake = run_fake(case)
    except Exception as error:
        if type(error).__name__ == "UnsupportedOperatorException":
            print(
                f"[fake] {OP_NAME} has no fake (meta) implementation, so FakeTensor, "
                f"torch.compile and export cannot trace it ({error_text(error, 1)})"
            )
        else:
            print(f"[fake] the fake raised where the real kernel did not: {error_text(error)}")
        return 1
    problems = structure(real, fake, "fake", "real kernel")
    if not problems:
        for i, (out, other) in enumerate(zip(real or (), fake or ())):
            if isinstance(out, torch.Tensor):
                label = f"out[{i}]"
                problems += metadata(label, out, other, "fake", "real kernel")
                problems += aliasing(label, out, args, other, fake_args, "fake", "real kernel")
    return report(problems, "the fake gives the real kernel's outputs: metadata and aliasing")
""",
    "schema": """
def main():
    case = CASES[0]
    buffers = allocate(case)
    before = {name: b.clone() for name, b in buffers.items()}
    args = arguments(*buffers.values(), *case["sizes"])
    try:
        outputs = flatten(op(**args))
    except Exception as error:
        print(f"[crash] {OP_NAME} raised in eager mode: {error_text(error)}")
        return 1
    problems = []
$schema_part
    # Which elements of its buffer each argument covers.
    indices = [torch.arange(b.numel()).view(b.shape) for b in before.values()]
    index_args = arguments(*indices, *case["sizes"])
    footprints = {name: (buffer, index_args[name].reshape(-1)) for name, buffer in VIEWS.items()}
    expectation = $expectation
    problems += writes(before, buffers, args, footprints, declared, expectation, BUDGET)
    return report(problems, "the op aliases and writes only what its schema declares")
""",
    "reference": """
def main():
    case = CASES[0]
    buffers = allocate(case)
    before = {name: b.clone() for name, b in buffers.items()}
    args = arguments(*buffers.values(), *case["sizes"])
    try:
        outputs = flatten(op(**args)) or ()
    except Exception as error:
        print(f"[crash] {OP_NAME} raised in eager mode: {error_text(error)}")
        return 1
$reference_part
""",
    "inductor": """
def main():
    compiled = torch.compile(model, fullgraph=True, dynamic=DYNAMIC)
    problems = []
    for number, case in enumerate(CASES, 1):
        found = []
        buffers = allocate(case)
        eager_buffers = {name: b.clone() for name, b in buffers.items()}
        try:
            want = flatten(model(*eager_buffers.values(), *case["sizes"]))
        except Exception as error:
            found.append(f"[crash] the program raised in eager mode: {error_text(error)}")
        else:
            for name, dim in STATIC_DIMS:
                torch._dynamo.mark_static(buffers[name], dim)
            try:
                got = flatten(compiled(*buffers.values(), *case["sizes"]))
            except Exception as error:
                found.append(
                    "[inductor] the Inductor-compiled program failed where eager ran: "
                    + error_text(error)
                )
            else:
                found += compare(case, want, eager_buffers, got, buffers)
        if len(CASES) > 1:
            found = [f"Case {number} of {len(CASES)}: {line}" for line in found]
        problems += found
    return report(problems, "$agreement")


def compare(case, want, eager_buffers, got, buffers):
    found = structure(want, got, "compiled program", "eager program")
    if found:
        return found
    pairs = [
        (i, f"out[{i}]", w, g)
        for i, (w, g) in enumerate(zip(want or (), got or ()))
        if isinstance(w, torch.Tensor)
    ]
    for _, label, w, g in pairs:
        found += metadata(label, w, g, "compiled program", "eager program")
        found += aliasing(
            label, w, eager_buffers, g, buffers, "compiled program", "eager program"
        )
$values_part
    return found
""",
}

_VALUES_BIT_EXACT = """\
    # Compared as raw bits: NaN equals NaN, -0.0 differs from 0.0.
    for _, label, w, g in pairs:
        found += bit_exact(label, g, w, "inductor", "eager")
    for name, w in eager_buffers.items():
        label = f"buffer {name!r} after the call"
        found += bit_exact(label, buffers[name], w, "inductor", "eager")"""

_VALUES_ULPS = """\
    # The spec is judged by a ULP budget against the float64 program, not bit
    # for bit: Inductor may reorder its arithmetic.
    outputs, expected_buffers = expected_program(case)
    for i, label, _, g in pairs:
        found += within_ulps(label, g, outputs[i], BUDGET, "inductor")
    for name, expected in expected_buffers.items():
        found += within_ulps(
            f"buffer {name!r} after the call", buffers[name], expected, BUDGET, "inductor"
        )"""

_SCHEMA_ALIASING = """\
    schema = $overload._schema
    problems += schema_aliasing(schema, outputs, args, "real kernel")
    try:
        fake_args, fake = run_fake(case)
    except Exception:
        pass  # a failing fake is the fake check's finding, not this one's
    else:
        problems += schema_aliasing(schema, fake, fake_args, "fake")
    declared = {
        a.name for a in schema.arguments if a.alias_info is not None and a.alias_info.is_write
    }"""

_REFERENCE_JUDGED = """\
    expectation = $reference(**arguments(*before.values(), *case["sizes"]))
    problems = []
    if len(outputs) != len(expectation.outputs):
        problems.append(
            f"[outputs] {OP_NAME} returns {len(outputs)} output(s) but the reference "
            f"gives {len(expectation.outputs)}"
        )
    for i, (out, expected) in enumerate(zip(outputs, expectation.outputs)):
        problems += within_ulps(f"out[{i}]", out, expected, BUDGET, "eager")
    for name, expected in expectation.writes.items():
        problems += within_ulps(f"{name} (written)", args[name], expected, BUDGET, "eager")
    return report(
        problems,
        f"every output and written argument is within {BUDGET} ULP of the float64 reference",
    )"""

_REFERENCE_NONE = """\
    # The spec has no reference: the check only asks that the op runs.
    return report([], f"{OP_NAME} ran (the spec has no reference to judge it against)")"""

_WHAT = {
    "fake": (
        "It calls the op eagerly, then under FakeTensorMode on the same views of fake\n"
        "buffers, and compares the outputs' count, shapes, dtypes, strides, storage\n"
        "offsets and aliasing."
    ),
    "schema": (
        "It calls the op eagerly and compares what its outputs alias (in the kernel and\n"
        "in the fake) and what it writes (every buffer, bit for bit before and after)\n"
        "with what its schema declares."
    ),
    "reference": (
        "It calls the op eagerly and judges its outputs and written arguments against\n"
        "the float64 reference, in ULPs of their dtype."
    ),
    "inductor": (
        "It runs the spec's program eagerly and compiled by Inductor (fullgraph) and\n"
        "compares the outputs and every buffer after the call."
    ),
}


# ---------------------------------------------------------------------------
# The script


def _identifier(name: str, taken: set[str], fallback: str) -> str:
    base = name if name.isidentifier() and not keyword.iskeyword(name) else fallback
    candidate, number = base, 2
    while candidate in taken:
        candidate, number = f"{base}_{number}", number + 1
    taken.add(candidate)
    return candidate


def _comment(text: str, indent: str = "", width: int = 88) -> str:
    """``text`` as comment lines; a blank line starts a new paragraph, and the
    lines after the first of a paragraph are indented by ``indent``."""
    lines = []
    for paragraph in text.split("\n\n"):
        wrapped = textwrap.wrap(
            " ".join(paragraph.split()),
            width - 2,
            subsequent_indent=indent,
            break_on_hyphens=False,
            break_long_words=False,
        )
        lines += [f"# {line}".rstrip() for line in wrapped or [""]]
        lines.append("#")
    return "\n".join(lines[:-1])


def _cases_table(cases: Sequence[Case], sizes: Sequence[tuple[int, ...]]) -> str:
    lines = ["CASES = ["]
    for number, (case, case_sizes) in enumerate(zip(cases, sizes, strict=True), 1):
        title = f"Case {number} of {len(cases)}" if len(cases) > 1 else "The Case"
        if len(cases) > 1 and number == len(cases):
            title += " (the one the suite saw fail)"
        text = _comment(f"{title}: {case.describe()}", "  ", 84)
        lines.append("    " + text.replace("\n", "\n    "))
        lines.append("    {")
        lines.append(f'        "seed": {case.seed},')
        lines.append('        "buffers": {  # name: (shape, dtype, fill)')
        for name, buffer in sorted(case.buffers.items()):
            fill = literal(buffer.fill)
            lines.append(
                f"            {literal(name)}: ({literal(tuple(buffer.shape))}, "
                f"{literal(buffer.dtype)}, {fill}),"
            )
        lines.append("        },")
        lines.append(f'        "sizes": {literal(tuple(case_sizes))},')
        lines.append("    },")
    lines.append("]")
    return "\n".join(lines)


_ALLOCATE = '''
def allocate(case):
    """The Case's buffers as the suite allocates them: one generator seeded with
    the Case's seed, the buffers in sorted name order (so the same values)."""
    generator = torch.Generator().manual_seed(case["seed"])
    buffers = {}
    for name, (shape, dtype, fill) in sorted(case["buffers"].items()):
        if fill == "normal":
            wide = torch.float64 if dtype == torch.float64 else torch.float32
            buffers[name] = torch.randn(shape, generator=generator, dtype=wide).to(dtype)
        else:
            _, low, high = fill
            buffers[name] = torch.randint(low, high, shape, generator=generator, dtype=dtype)
    return buffers
'''


def _arguments_function(
    args: Sequence[tuple[str, Any]],
    case: Case,
    buffer_names: Sequence[str],
    size_names: Sequence[str],
    parameters: dict[str, str],
) -> str:
    meta = case.meta_buffers()
    entries = []
    for name, value in args:
        if isinstance(value, Constant):
            value = value.value
        if value is DEFAULT:
            continue  # left out: the op uses its schema default
        if isinstance(value, View):
            concrete = case.args[name]
            ranks = _ranks(meta[concrete.buffer], concrete.ops)
            expression = view_expression(parameters[value.buffer], value.ops, ranks)
        else:
            expression = literal(value)
        entries.append(f"        {literal(name)}: {expression},")
    signature = ", ".join([parameters[n] for n in buffer_names] + list(size_names))
    body = "\n".join(entries)
    return (
        f"def arguments({signature}):\n"
        '    """The op\'s arguments: the Case\'s views of its buffers, as in the suite."""\n'
        f"    return {{\n{body}\n    }}\n"
    )


def write_repro(
    spec: Spec, check: str, cases: Sequence[Case], index: int, batched: bool, path: Path
) -> Path:
    """Write the standalone script for cases[index] failing `check` of `spec` to `path`
    (creating parent folders), return path."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render_repro(spec, check, cases, index, batched))
    return path


def render_repro(spec: Spec, check: str, cases: Sequence[Case], index: int, batched: bool) -> str:
    """The text of the script ``write_repro`` writes."""
    if check not in CHECKS:
        raise ValueError(f"unknown check {check!r}; the checks are {', '.join(CHECKS)}")
    if not 0 <= index < len(cases):
        raise IndexError(f"index {index} is outside the {len(cases)} Case(s)")
    try:
        spec.resolve()
    except SpecError:
        if spec.prepare is None:
            raise
        spec.prepare()
    batch = None
    if check == "inductor" and batched and len(cases) > 1:
        batch = batch_signature(cases)
        run = list(cases[: index + 1])
    else:
        run = [cases[index]]
    case = run[-1]

    inliner = Inliner(_RESERVED)
    for module in (os_module, sys, torch):
        inliner.bind(module, module.__name__)
    overload = spec.overload
    needs_fake = check in ("fake", "schema", "inductor") and overload is not None
    declared = (
        {
            a.name
            for a in overload._schema.arguments
            if a.alias_info is not None and a.alias_info.is_write
        }
        if overload is not None
        else set()
    )
    needs_reference = spec.reference is not None and (
        check == "reference"
        or (check == "schema" and bool(declared))
        or (check == "inductor" and not spec.bit_exact)
    )

    helpers = {"flatten", "error_text", "report"}
    if check == "fake":
        helpers |= {"run_fake", "structure", "metadata", "aliasing"}
    elif check == "schema":
        helpers |= {"writes"} | ({"schema_aliasing", "run_fake"} if overload is not None else set())
    elif check == "reference":
        helpers |= {"within_ulps"} if spec.reference is not None else set()
    else:
        helpers |= {"structure", "metadata", "aliasing"}
        helpers |= {"bit_exact"} if spec.bit_exact else {"within_ulps", "expected_program"}

    # The suite's own stand-ins first, so they keep their names.
    copies = _needed_copies(helpers)
    if check == "schema" and not needs_reference:
        copies.discard("ulp_error")  # only judges declared writes against the reference
    for name in sorted(copies):
        inliner.name_of(_COPIED_HELPERS[name], name, "the ULP measure")
    stand_ins = {}
    if needs_reference:
        for name in ("Expected", "Expectation", "exact"):
            stand_ins[name] = inliner.name_of(
                getattr(reference_module, name), name, "the reference"
            )

    loading, op_expression, defining_module = _op_loading(spec, inliner)
    program_name = None
    if check == "inductor":
        program = spec.program
        hint = getattr(program, "__name__", "program")
        if not isinstance(program, types.FunctionType):
            inliner.problems.append(f"the program's source: {program!r} is not a Python function")
        else:
            program_name = inliner.name_of(
                program, hint if hint != "<lambda>" else "program", "the program"
            )
    reference_name = None
    if needs_reference:
        ref = spec.reference
        if not isinstance(ref, types.FunctionType):
            inliner.problems.append(f"the reference's source: {ref!r} is not a Python function")
        else:
            hint = ref.__name__ if ref.__name__ != "<lambda>" else "reference"
            reference_name = inliner.name_of(ref, hint, "the reference")
    fake_lines: list[str] = []
    if needs_fake:
        fake, whence = _fake_of(spec)
        function = unwrap_user_function(fake) if fake is not None else None
        # A module defining the op in Python registers its own fake when imported.
        imported = (
            defining_module is not None
            and spec.fake is None
            and (
                function is None
                or Path(function.__code__.co_filename).resolve()
                == Path(defining_module.__file__).resolve()
            )
        )
        if fake is not None and not imported:
            op_short = overload._schema.name.partition("::")[2]
            if function is None:
                inliner.problems.append(
                    f"the fake's source: {fake!r} is not a Python function of the user's"
                )
            else:
                hint = function.__name__
                if hint in ("_", "<lambda>"):
                    hint = f"{op_short}_fake"
                fake_name = inliner.name_of(function, hint, "the fake")
                fake_lines = [
                    f"# The op's fake: {whence}.",
                    f"torch.library.register_fake({literal(overload._schema.name)}, {fake_name})",
                ]
        elif fake is None:
            fake_lines = ["# The op has no Python fake registered (the check ran without one)."]

    code = inliner.code()
    helper_names = _helper_order(helpers)
    imports: list[str] = []
    for name in helper_names:
        imports += [line for line in _HELPERS[name][1] if line not in imports]
    imports.sort()
    if any("importlib.util" in line for line in loading):
        imports.insert(0, "import importlib.util")
    elif any("importlib." in line for line in loading):
        imports.insert(0, "import importlib")
    imports += [line for line in inliner.imports if line not in imports]

    # The Case(s), their views and the program.
    if batch is not None:
        signature_args = batch.signature.args
        sizes = [batch.sizes(c) for c in run]
        size_names = [f"s{i}" for i in range(len(batch.dynamic))]
        static_dims = [(name, dim) for name, dim, _ in batch.static_dims]
    else:
        signature_args = tuple(case.args.items())
        sizes = [()]
        size_names = []
        static_dims = []
    buffer_names = sorted(case.buffers)
    taken = {"op", "arguments", "torch", "model", *size_names}
    if program_name:
        taken.add(program_name)
    parameters = {name: _identifier(name, taken, "buffer") for name in buffer_names}
    arguments_code = _arguments_function(signature_args, case, buffer_names, size_names, parameters)
    if size_names:
        varying = ", ".join(size_names)
        arguments_code = (
            f"# {varying}: the sizes that vary across the batch, inputs of the compiled\n"
            "# program (dynamic); every other size is a constant, as in the suite.\n"
            + arguments_code
        )

    out: list[str] = []
    header = (
        f'Reproduces the "{check}" check of spec {spec.name!r} '
        f"(op {_op_name(spec)}) failing on {case.describe()}"
    )
    if batch is not None:
        runs = "Case 1" if index == 0 else f"Cases 1 to {index + 1} in order"
        header += (
            f" (Case {index + 1} of a batch of {len(cases)} sharing one program compiled "
            f"with dynamic shapes: the script compiles once and runs {runs}, as the suite did)"
        )
    written = (
        f"Written by the torch.compile conformance suite on torch {torch.__version__} "
        f"(Python {platform.python_version()}). It needs only torch and what loads the op: "
        "run it with `python <this file>`. Exit status 1 while the bug is there, 0 when "
        "everything agrees."
    )
    out.append(
        _comment(f"{header}\n\n{written}\n\n{_WHAT[check]}")
        + "\n\nfrom __future__ import annotations\n\nimport os\n\n"
        "# Inductor's caches off: a graph cached under an older fake replays the old bug.\n"
        'os.environ["TORCHINDUCTOR_FORCE_DISABLE_CACHES"] = "1"\n\n'
        + "\n".join(["import sys", "", "import torch", *imports])
    )
    if inliner.problems:
        message = "could not recover " + "; ".join(inliner.problems)
        out.append(
            "# The suite could not copy all the code this check runs into the script:\n"
            f"raise SystemExit({literal(message)})\n"
        )
    if loading:
        out.append("\n".join(loading) + "\n")
    if check == "inductor":
        out.append(
            "# The suite's compile settings: Inductor asserts every output's size and\n"
            "# stride after the op; an undeclared output alias of a custom op is not an\n"
            "# error (torch raises on it only where the CI variable is set); no duck sizing.\n"
            "import torch._dynamo.config\n"
            "import torch._functorch.config\n"
            "import torch._inductor.config\n"
            "import torch.fx.experimental._config\n\n"
            "torch._inductor.config.size_asserts = True\n"
            "torch._functorch.config.error_on_custom_op_aliasing = False\n"
            "torch.fx.experimental._config.use_duck_shape = False\n"
            "torch._dynamo.config.recompile_limit = 16\n"
            "torch._dynamo.config.fail_on_recompile_limit_hit = True\n"
        )
    if code.strip():
        out.append("# --- The code under test, copied from its source ---\n\n\n" + code)
    if fake_lines:
        out.append("\n".join(fake_lines) + "\n")
    constants = [f"op = {op_expression}", f"OP_NAME = {literal(_op_name(spec))}"]
    if check in ("reference", "schema") or (check == "inductor" and not spec.bit_exact):
        constants.append(f"BUDGET = {spec.ulp_budget}  # ULPs allowed against the reference")
    out.append("\n".join(constants) + "\n")
    out.append("# --- The Case ---\n\n" + _cases_table(run, sizes) + "\n")
    out.append(_ALLOCATE.strip() + "\n")
    out.append(arguments_code)
    if check == "schema":
        views = {n: v.buffer for n, v in case.args.items() if isinstance(v, View)}
        items = "".join(f"    {literal(n)}: {literal(b)},\n" for n, b in views.items())
        out.append(f"# Each tensor argument: the buffer it is a view of.\nVIEWS = {{\n{items}}}\n")
    if check == "inductor":
        params = ", ".join([parameters[n] for n in buffer_names] + size_names)
        out.append(
            f"def model({params}):\n"
            '    """The spec\'s program as the suite compiles it, the views made in the graph."""\n'
            f"    return {program_name or 'program'}(op, **arguments({params}))\n"
        )
        out.append(
            f"DYNAMIC = {batch is not None}  # one compile for the batch, dynamic in what varies\n"
            f"STATIC_DIMS = {literal(static_dims)}  # (buffer, dim): equal across the batch\n"
        )
    helper_code = []
    for name in helper_names:
        text = _HELPERS[name][2].strip() + "\n"
        text = string.Template(text).safe_substitute(
            reference=reference_name or "reference",
            program=program_name or "program",
            Expected=stand_ins.get("Expected", "Expected"),
        )
        helper_code.append(text)
    out.append(
        "# --- Comparisons, as the suite's verdicts make them ---\n\n\n"
        + "\n\n\n".join(text.rstrip("\n") for text in helper_code)
    )
    out.append(_main(check, spec, overload, reference_name, declared) + "\n")
    out.append('if __name__ == "__main__":\n    sys.exit(main())\n')
    return "\n\n\n".join(part.rstrip("\n") for part in out) + "\n"


def _op_name(spec: Spec) -> str:
    overload = spec.overload
    if overload is not None:
        return str(overload)
    return getattr(spec.op, "__qualname__", repr(spec.op))


def _main(
    check: str,
    spec: Spec,
    overload: torch._ops.OpOverload | None,
    reference_name: str | None,
    declared: set[str],
) -> str:
    template = string.Template(_MAIN[check].strip("\n"))
    if check == "fake":
        return template.substitute()
    if check == "schema":
        if overload is not None:
            schema_part = string.Template(_SCHEMA_ALIASING).substitute(
                overload=_op_expression(overload)
            )
        else:
            schema_part = "    declared = set()  # a Python function declares no writes"
        expectation = "None"
        if reference_name is not None and declared:
            expectation = f'{reference_name}(**arguments(*before.values(), *case["sizes"]))'
        return template.substitute(schema_part=schema_part, expectation=expectation)
    if check == "reference":
        part = _REFERENCE_NONE
        if reference_name is not None:
            part = string.Template(_REFERENCE_JUDGED).substitute(reference=reference_name)
        return template.substitute(reference_part=part)
    if spec.bit_exact:
        agreement = "the compiled program agrees with eager bit for bit"
        values = _VALUES_BIT_EXACT
    else:
        agreement = f"the compiled program is within {spec.ulp_budget} ULP of the float64 program"
        values = _VALUES_ULPS
    return template.substitute(agreement=agreement, values_part=values)
