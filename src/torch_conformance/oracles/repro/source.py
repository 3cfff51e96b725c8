"""The source text of functions, lambdas and classes, and the names it reads.

Code of an installed library (torch, the standard library) is imported by a
script; the user's code (and the suite's) is copied into it from its source.
"""

from __future__ import annotations

import ast
import dis
import inspect
import re
import sysconfig
import textwrap
import types
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import torch

from torch_conformance.oracles.core.locations import PACKAGE
from torch_conformance.oracles.modes.cache import filled


class Unrecoverable(Exception):
    """The source of a piece of code cannot be recovered."""


def _library_roots() -> tuple[Path, ...]:
    paths = sysconfig.get_paths()
    roots = {Path(paths[key]).resolve() for key in ("stdlib", "platstdlib", "purelib", "platlib")}
    roots.add(Path(torch.__file__).resolve().parent)
    return tuple(roots)


_ROOTS = _library_roots()


# Folders that hold installed packages, wherever they lie (a --target install).
_INSTALLED = ("site-packages", "dist-packages")


def is_library_file(file: str | None) -> bool:
    """Code of an installed library (torch, the standard library, a package
    in a site-packages folder): imported, not copied. The suite's own code
    is copied wherever it is installed: a script imports nothing of it."""
    if not file or file.startswith("<"):
        return True
    path = Path(file).resolve()
    if path.is_relative_to(PACKAGE):
        return False
    return any(path.is_relative_to(root) for root in _ROOTS) or any(
        part in _INSTALLED for part in path.parts
    )


def source_file(obj: Any) -> str | None:
    if isinstance(obj, types.FunctionType):
        return obj.__code__.co_filename
    if isinstance(obj, types.ModuleType):
        return getattr(obj, "__file__", None)
    try:
        return inspect.getsourcefile(obj) or inspect.getfile(obj)
    except (TypeError, OSError):
        return None


def is_user_code(obj: Any) -> bool:
    file = source_file(obj)
    return file is not None and not file.startswith("<") and not is_library_file(file)


def location(obj: Any) -> str:
    """``path:line`` of ``obj``'s source, relative to the suite's package
    (``oracles/core/findings.py``) when it is the suite's."""
    file = source_file(obj) or "?"
    path = Path(file)
    if path.is_absolute() and path.resolve().is_relative_to(PACKAGE):
        file = str(path.resolve().relative_to(PACKAGE))
    line = obj.__code__.co_firstlineno if isinstance(obj, types.FunctionType) else None
    if line is None:
        try:
            line = inspect.getsourcelines(obj)[1]
        except (OSError, TypeError):
            line = None
    return f"{file}:{line}" if line else file


def _codes(code: types.CodeType) -> Iterable[types.CodeType]:
    yield code
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield from _codes(const)


def global_names(fn: types.FunctionType) -> set[str]:
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


def loaded_names(tree: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def module_attributes(tree: ast.AST, name: str) -> set[str]:
    """The attributes read as ``name.attribute`` in ``tree``."""
    return {
        n.attr
        for n in ast.walk(tree)
        if isinstance(n, ast.Attribute)
        and isinstance(n.value, ast.Name)
        and n.value.id == name
        and isinstance(n.ctx, ast.Load)
    }


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


def class_source(cls: type) -> tuple[str, ast.Module]:
    """A class's source, dedented, and its syntax tree."""
    try:
        text = textwrap.dedent(inspect.getsource(cls))
        tree = ast.parse(text)
    except (OSError, TypeError, SyntaxError) as error:
        raise Unrecoverable(f"inspect could not find it ({error})") from error
    if not tree.body or not isinstance(tree.body[0], ast.ClassDef):
        raise Unrecoverable("the source inspect gives is not a class definition")
    return text, tree


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
    check = loaded_names(ast.parse(result))
    if any(old in check for old in mapping if old not in mapping.values()):
        raise Unrecoverable("renaming the names its source reads failed")
    return result


def class_names(tree: ast.AST, cls: type) -> set[str]:
    """Names a class reads at class level (annotations aside) or in its methods."""
    stored: set[str] = set()
    loaded: set[str] = set()

    class Visitor(ast.NodeVisitor):
        def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
            for decorator in node.decorator_list:
                self.visit(decorator)
            stored.add(node.name)

        visit_AsyncFunctionDef = visit_FunctionDef  # type: ignore[assignment]

        def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
            if node.value is not None:
                self.visit(node.value)
            if isinstance(node.target, ast.Name):
                stored.add(node.target.id)

        def visit_Name(self, node: ast.Name) -> None:
            (loaded if isinstance(node.ctx, ast.Load) else stored).add(node.id)

    assert isinstance(tree, ast.Module) and isinstance(tree.body[0], ast.ClassDef)
    top = tree.body[0]
    for decorator in top.decorator_list:
        Visitor().visit(decorator)
    for base in top.bases:
        Visitor().visit(base)
    for statement in top.body:
        Visitor().visit(statement)
    file = source_file(cls)
    methods = loaded_names(tree)
    for value in vars(cls).values():
        if isinstance(value, (staticmethod, classmethod)):
            value = value.__func__
        if isinstance(value, types.FunctionType) and value.__code__.co_filename == file:
            loaded.update(global_names(value) & methods)
    return loaded - stored


def unwrap_user_function(fn: Any) -> types.FunctionType | None:
    """The user's function behind a registered fake (through ``.func``,
    ``__wrapped__``, closures and a custom op's ``_abstract_fn``), or None."""
    queue: list[Any] = [fn]
    seen: set[int] = set()
    while queue and len(seen) < 64:
        candidate = queue.pop(0)
        if candidate is None or id(candidate) in seen:
            continue
        seen.add(id(candidate))
        if isinstance(candidate, types.FunctionType) and is_user_code(candidate):
            return candidate
        queue += [
            getattr(candidate, name, None) for name in ("__wrapped__", "func", "_abstract_fn")
        ]
        if isinstance(candidate, types.FunctionType):
            queue += [
                cell.cell_contents
                for cell in candidate.__closure__ or ()
                if filled(cell) and callable(cell.cell_contents)
            ]
    return None
