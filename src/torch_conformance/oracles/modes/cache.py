"""The compiled programs of a run, keyed so that none is ever stale (see
``compiled_program`` for what a compiled program proves).

Inductor's caches persist between runs of the suite, in a folder keyed by
everything a cached graph silently depends on: the torch version, the loaded
op libraries, and the op's fake (its code). A changed fake or kernel build
gets a fresh folder, never a stale graph.
"""

from __future__ import annotations

import hashlib
import marshal
import os
import tempfile
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import torch

from torch_conformance.oracles.core.meter import SPENT

# A compiled program, of whichever class its Mode chose.
Program = TypeVar("Program")


def fingerprint(op: torch._ops.OpOverload | None) -> str:
    """A key for everything a cached compiled graph of ``op`` depends on unseen.

    A program of torch's own ops alone (``op`` None) depends on the torch
    version only: the op libraries a process happens to have loaded before
    it (which in a parallel run depends on the tests a worker ran first)
    would give it another key, and a warm cache would miss.
    """
    digest = hashlib.sha256(torch.__version__.encode())
    if op is not None:
        for library in sorted(torch.ops.loaded_libraries):
            stat = os.stat(library)
            digest.update(f"{library}:{stat.st_size}:{stat.st_mtime_ns}".encode())
        digest.update(op.name().encode())
        fake = torch._library.simple_registry.singleton.find(op.name()).fake_impl.kernel
        if fake is not None:
            _digest_code(digest, fake.func)
    return digest.hexdigest()[:16]


def _digest_code(digest: Any, func: Callable, depth: int = 4) -> None:
    """Hash a function's code and, through wrappers, the code it wraps."""
    code = getattr(func, "__code__", None)
    if code is None or depth == 0:
        return
    digest.update(marshal.dumps(code))
    inner = [getattr(func, "__wrapped__", None)]
    inner += [cell.cell_contents for cell in func.__closure__ or () if filled(cell)]
    for candidate in inner:
        if callable(candidate):
            _digest_code(digest, candidate, depth - 1)


def filled(cell: types.CellType) -> bool:
    """A closure cell that holds a value (not one yet to be assigned)."""
    try:
        cell.cell_contents  # noqa: B018
    except ValueError:
        return False
    return True


class CompiledPrograms:
    """Every compiled program of a run, one per key and fake; what kind of
    program a key gets is its Mode's choice (``Compiled.program``)."""

    def __init__(self, cache_root: Path):
        self.cache_root = cache_root
        self._programs: dict[tuple, Any] = {}

    def get(
        self,
        key: tuple,
        op: torch._ops.OpOverload | None,
        build: Callable[[Path, Callable[[], None]], Program],
        fresh: bool = False,
    ) -> Program:
        """The program of ``key``, built by ``build`` (from its Inductor cache
        folder and what to tell of each compile) where none is kept;
        ``fresh``: a new one that compiles from scratch (still through the
        disk cache) and is not kept."""
        key = (*key, fingerprint(op))
        program = None if fresh else self._programs.get(key)
        if program is None:
            cache_dir = self.cache_root / f"torch-{torch.__version__}" / key[-1]
            program = build(cache_dir, _count_compile)
            SPENT.programs += 1
            if not fresh:
                self._programs[key] = program
        return program


def _count_compile() -> None:
    SPENT.compiles += 1


_programs = CompiledPrograms(Path(tempfile.gettempdir()) / "conformance-inductor-cache")


def compiled_programs() -> CompiledPrograms:
    """The CompiledPrograms of this process."""
    return _programs


def use_cache_root(root: Path) -> None:
    """Keep Inductor's caches under ``root`` from now on (and forget compiled programs)."""
    global _programs
    _programs = CompiledPrograms(root)
