"""The code's layout holds: imports inside ``oracles`` run forward only (and
CONTRIBUTING.md's map of it says so), no product code imports ``conftest``,
and a spec file's public names import."""

from __future__ import annotations

import ast
import importlib
import re
from pathlib import Path

CHECKOUT = Path(__file__).resolve().parents[2]
SOURCE = CHECKOUT / "src"
ORACLES = SOURCE / "torch_conformance" / "oracles"


def _module(path: Path) -> str:
    parts = path.relative_to(SOURCE).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path, modules: set[str]) -> set[str]:
    """The modules of ``modules`` that the file imports: lazily, and for
    type checking alone, too (a cycle of types is a cycle of the design)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for alias in node.names:
                name = f"{node.module}.{alias.name}"
                found.add(name if name in modules else node.module)
    return found & modules


def _graph() -> dict[str, set[str]]:
    files = {_module(path): path for path in ORACLES.rglob("*.py")}
    return {name: _imports(path, set(files)) - {name} for name, path in files.items()}


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """A cycle of ``graph``, if it has one."""
    state: dict[str, int] = {}
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for following in sorted(graph.get(node, ())):
            if state.get(following) == 1:
                return path[path.index(following) :] + [following]
            if following not in state:
                found = visit(following)
                if found:
                    return found
        path.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state:
            found = visit(node)
            if found:
                return found
    return None


def test_no_module_of_oracles_imports_itself_through_others():
    cycle = _cycle(_graph())
    assert cycle is None, " -> ".join(cycle)


def test_the_subpackages_of_oracles_import_forward_only():
    def package(module: str) -> str:
        return ".".join(module.split(".")[:3])

    packages: dict[str, set[str]] = {}
    for module, imported in _graph().items():
        packages.setdefault(package(module), set()).update(package(m) for m in imported)
    for name in packages:
        packages[name].discard(name)
    # The public surface (torch_conformance.case, ...) re-exports; it is no subpackage.
    subpackages = {
        name: deps for name, deps in packages.items() if (ORACLES / name.split(".")[-1]).is_dir()
    }
    cycle = _cycle({name: deps & set(subpackages) for name, deps in subpackages.items()})
    assert cycle is None, " -> ".join(cycle)
    assert packages["torch_conformance.oracles.core"] == set(), (
        "the vocabulary imports nothing else of the suite"
    )


def test_no_check_imports_another_check():
    checks = {m for m in _graph() if m.startswith("torch_conformance.oracles.checks.")}
    for module in sorted(checks):
        others = _graph()[module] & (checks - {module})
        assert not others, f"{module} imports {sorted(others)}: what checks share goes in judging"


def test_the_runner_knows_checks_not_what_they_run():
    """The runner drives a check through ``Check`` alone: it imports the
    checks and what they share, the vocabulary, the repro scripts and the
    Mode interface, never a Mode, a strategy or triage."""
    allowed = (
        "torch_conformance.oracles.runner",
        "torch_conformance.oracles.checks",
        "torch_conformance.oracles.judging",
        "torch_conformance.oracles.core",
    )
    allowed += ("torch_conformance.oracles.repro", "torch_conformance.oracles.modes.mode")
    graph = _graph()
    for module in sorted(m for m in graph if m.startswith("torch_conformance.oracles.runner")):
        others = sorted(m for m in graph[module] if not m.startswith(allowed))
        assert not others, f"{module} imports {others}: a check's own logic goes in its Check"


def test_no_function_of_oracles_is_over_100_lines():
    long = [
        f"{path.relative_to(CHECKOUT)}:{node.lineno} {node.name} ({length} lines)"
        for path in sorted(ORACLES.rglob("*.py"))
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
        and (length := (node.end_lineno or node.lineno) - node.lineno + 1) > 100
    ]
    assert long == [], "split into steps a reader can follow: " + ", ".join(long)


def test_every_module_is_on_its_packages_map():
    """Each package's docstring names every module in it (``name``), and
    the top package's every subpackage and public module."""
    for package in [ORACLES, *sorted(p for p in ORACLES.iterdir() if (p / "__init__.py").exists())]:
        text = ast.get_docstring(ast.parse((package / "__init__.py").read_text())) or ""
        named = set(re.findall(r"``(?:oracles\.)?(\w+)", text))
        members = {p.stem for p in package.glob("*.py") if p.stem != "__init__"}
        members |= {p.name for p in package.iterdir() if (p / "__init__.py").exists()}
        missing = sorted(members - named)
        assert not missing, f"{package.relative_to(CHECKOUT)}/__init__.py omits {missing}"


def test_nothing_imports_conftest():
    offenders = [
        str(path.relative_to(CHECKOUT))
        for path in CHECKOUT.rglob("*.py")
        if ".git" not in path.parts
        and re.search(r"^\s*(import conftest|from conftest import)", path.read_text(), re.M)
    ]
    assert offenders == []


def _docs() -> list[str]:
    """The text of every page of the docs: the README, CONTRIBUTING and docs/."""
    pages = [CHECKOUT / "README.md", CHECKOUT / "CONTRIBUTING.md"]
    return [p.read_text() for p in [*pages, *sorted((CHECKOUT / "docs").rglob("*.md"))]]


def _public_names() -> set[tuple[str, str]]:
    """Every ``from torch_conformance... import ...`` of the docs and the user spec files."""
    texts = _docs()
    texts += [p.read_text() for p in (CHECKOUT / "tests" / "user_specs").glob("*.py")]
    names = set()
    for text in texts:
        for module, imported in re.findall(
            r"^from (torch_conformance[\w.]*) import ([\w, ]+)$", text, re.M
        ):
            names |= {(module, name.strip()) for name in imported.split(",")}
    return names


def test_every_public_name_a_spec_file_uses_imports():
    names = _public_names()
    assert ("torch_conformance.spec", "Spec") in names and (
        "torch_conformance.case",
        "Case",
    ) in names
    for module, name in sorted(names):
        assert hasattr(importlib.import_module(module), name), f"from {module} import {name}"


def test_the_public_surface_names_what_the_docs_document():
    text = "\n".join(_docs())
    for dotted in sorted(
        set(
            re.findall(
                r"`(torch_conformance\.(?:case|spec|layouts|reference|domain|properties|registry)"
                r"\.\w+)",
                text,
            )
        )
    ):
        module, _, name = dotted.rpartition(".")
        assert hasattr(importlib.import_module(module), name), dotted


def test_contributing_lays_out_every_subpackage_of_oracles():
    """CONTRIBUTING.md's map of ``oracles/`` names every subpackage, in an
    order the imports run forward in."""
    text = (CHECKOUT / "CONTRIBUTING.md").read_text()
    block = re.search(r"```\noracles/\n(.*?)```", text, re.S)
    assert block, "CONTRIBUTING.md has no map of oracles/"
    listed = re.findall(r"^  (\w+)/", block.group(1), re.M)
    subpackages = sorted(p.name for p in ORACLES.iterdir() if (p / "__init__.py").exists())
    assert sorted(listed) == subpackages
    packages: dict[str, set[str]] = {}
    for module, imported in _graph().items():
        package = module.split(".")[1] if module.count(".") else ""
        packages.setdefault(package, set()).update(
            m.split(".")[1] for m in imported if m.count(".") and m.split(".")[1] in listed
        )
    for position, package in enumerate(listed):
        later = sorted(packages.get(package, set()) & set(listed[position + 1 :]))
        assert not later, f"oracles.{package} imports {later}, listed after it"
