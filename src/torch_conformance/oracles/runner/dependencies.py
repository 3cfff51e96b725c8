"""What a verdict depends on, as a key: a verdict is a function of what it
was computed from, so a kept one holds while every part of its key does.

The key of one test (a spec, a check, a Mode) covers:

- the suite: its version and the hash of its source (``suite``);
- the machine's stack: torch, Triton, Hypothesis and Python versions, the
  device, the CPU's instruction-set features (real libraries pick kernels
  by them), and the environment variables that set torch's, Inductor's,
  Triton's or the thread pools' behaviour (``machine``);
- the run: the profile's settings and the options that change what runs;
- the spec: the file or module that defines it and every module of the
  user's that loading it imported (``loaded``), a recording's file and the
  modules it imports;
- the op: the bytes of every op library loaded, the source of every module
  of the user's that registers its kernels or fake, and the name and
  version of an installed package that does.

Where one of these cannot be told (a kernel registered from C++ with no
library or extension module to hash), there is no key (``Unknown``), and the
verdict is not kept.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.metadata
import os
import platform
import sys
import types
from collections.abc import Iterable
from pathlib import Path

import hypothesis
import torch

from torch_conformance.oracles.core.locations import PACKAGE
from torch_conformance.oracles.core.schema import registered_files, registering_modules
from torch_conformance.oracles.core.specification import Spec
from torch_conformance.oracles.repro.source import is_library_file

# Per spec file or module loaded: the user's modules its loading imported.
LOADED: dict[str, tuple[str, ...]] = {}


class Unknown(Exception):
    """What a verdict depends on cannot be told: it is not kept."""


def _digest(*parts: object) -> str:
    return hashlib.sha256(repr(parts).encode()).hexdigest()


def _file(path: str | Path) -> str:
    """A file's hash, read once a process while its size and time hold."""
    try:
        stat = Path(path).stat()
    except OSError as error:
        raise Unknown(f"cannot read {path}: {error.strerror}") from None
    return _hashed(str(Path(path).resolve()), stat.st_size, stat.st_mtime_ns)


@functools.cache
def _hashed(path: str, size: int, mtime: int) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


@functools.cache
def suite() -> str:
    """The suite's version and the hash of every source file in its package."""
    files = sorted(
        p for p in PACKAGE.rglob("*") if p.suffix in (".py", ".cpp", ".h", ".json") and p.is_file()
    )
    digest = hashlib.sha256()
    for path in files:
        digest.update(str(path.relative_to(PACKAGE)).encode())
        digest.update(path.read_bytes())
    return _digest(_version("torch-compile-conformance"), digest.hexdigest())


def _version(distribution: str) -> str | None:
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return None


@functools.cache
def _cpu_features() -> str:
    """What the CPU offers kernels that pick by it (AVX512, AVX512-BF16, AMX)."""
    capability = torch.backends.cpu.get_cpu_capability()
    try:
        flags = next(
            line.partition(":")[2].split()
            for line in Path("/proc/cpuinfo").read_text().splitlines()
            if line.startswith(("flags", "Features"))
        )
    except (OSError, StopIteration):
        flags = [platform.processor()]
    return _digest(capability, sorted(flags))


# The environment variables that change what torch, Inductor, Triton or a
# kernel's threads do, by prefix; less those that name a cache's folder, and
# those the suite sets itself as it loads (they would tell one process from
# another, not one stack from another).
_SETTINGS = ("TORCH", "PYTORCH", "TRITON", "OMP_", "MKL_", "KMP_", "ATEN_", "CUDA_", "HIP_")
_NOT_SETTINGS = ("TRITON_INTERPRET", "TORCH_CONFORMANCE_CACHE")


def settings_in_environment() -> list[tuple[str, str]]:
    """The environment variables among ``_SETTINGS`` (and not a cache's folder)."""
    return sorted(
        (name, value)
        for name, value in os.environ.items()
        if name.startswith(_SETTINGS)
        and name not in _NOT_SETTINGS
        and not name.endswith(("_CACHE_DIR", "_CACHE_PATH"))
    )


def machine(device: str) -> str:
    """The stack every verdict of this process stands on, the environment
    variables that set torch's, Inductor's and Triton's behaviour included."""
    try:
        import triton

        triton_version = triton.__version__
    except ImportError:
        triton_version = None
    return _digest(
        torch.__version__,
        triton_version,
        hypothesis.__version__,
        sys.version,
        device,
        _cpu_features(),
        settings_in_environment(),
    )


def user_modules(names: Iterable[str]) -> tuple[str, ...]:
    """The files of the user's modules among ``names`` (not a library's, not the suite's)."""
    files = []
    for name in names:
        file = getattr(sys.modules.get(name.partition(":")[0]), "__file__", None)
        if file and not is_library_file(file) and not Path(file).resolve().is_relative_to(PACKAGE):
            files.append(str(Path(file).resolve()))
    return tuple(sorted(set(files)))


@functools.cache
def _distributions() -> dict[str, list[str]]:
    """Per top-level module, the installed distributions that hold it: a
    scan of every installed package, once a process."""
    return dict(importlib.metadata.packages_distributions())


def _installed(module: types.ModuleType) -> str | None:
    """``name==version`` of the installed distribution that holds ``module``."""
    top = module.__name__.partition(".")[0]
    for distribution in _distributions().get(top, ()):
        return f"{distribution}=={_version(distribution)}"
    return None


def _op(spec: Spec) -> list[object]:
    """What the spec's op is made of (its kernels and fake)."""
    overload = spec.overload
    if overload is None:  # a Python function: its module
        module = sys.modules.get(getattr(spec.op, "__module__", "") or "")
        if module is None:
            raise Unknown(f"the module of {spec.label} is not loaded")
        return [_libraries(), *_modules([module])]
    return op_parts(overload)


def op_parts(overload: torch._ops.OpOverload) -> list[object]:
    """What a torch op is made of: the op libraries loaded, the modules that
    register its kernels and fake, and the user's compiled extensions."""
    modules = [sys.modules[m] for m in registering_modules(overload.name()) if m in sys.modules]
    native = [f for f in registered_files(overload.name()).values() if not f.endswith(".py")]
    extensions = _extensions()
    if native and not torch.ops.loaded_libraries and not extensions and not modules:
        raise Unknown(f"{overload} is registered from C++ that no loaded library holds")
    return [_libraries(), *_modules(modules), extensions]


def _libraries() -> list[tuple[str, str]]:
    return sorted((library, _file(library)) for library in torch.ops.loaded_libraries)


def _modules(modules: Iterable[types.ModuleType]) -> list[object]:
    """Each module: its source's hash where it is the user's, the installed
    package's version where it is a library's; the suite's is in ``suite``."""
    parts: list[object] = []
    for module in modules:
        file = getattr(module, "__file__", None)
        if not file:
            raise Unknown(f"module {module.__name__} has no file")
        path = Path(file).resolve()
        if path.is_relative_to(PACKAGE):
            continue
        if is_library_file(str(path)):
            installed = _installed(module)
            if installed is None:
                raise Unknown(f"module {module.__name__} is of no installed package")
            parts.append(installed)
        else:
            parts.append((str(path), _file(path)))
    return parts


def _extensions() -> list[tuple[str, str]]:
    """The user's compiled extension modules loaded (a kernel library built
    and imported as a Python module)."""
    compiled = _inductors()
    found = []
    for name, module in list(sys.modules.items()):
        file = getattr(module, "__file__", None) or ""
        if file.endswith((".so", ".pyd")) and not is_library_file(file) and name not in compiled:
            found.append((file, _file(file)))
    return sorted(found)


def _inductors() -> set[str]:
    """The modules Inductor built and loaded in this process (its compiled
    programs, which differ with what ran before, not with the user's code)."""
    try:
        from torch._inductor.codecache import CppPythonBindingsCodeCache
    except ImportError:
        return set()
    return set(getattr(CppPythonBindingsCodeCache, "_loaded_module_names", ()))


def op_name(op: object) -> str:
    """A spec's op by a name that holds from one process to the next (a
    function's repr names its address)."""
    if isinstance(op, str):
        return op
    qualname = getattr(op, "_qualname", None) or getattr(op, "__qualname__", None)
    if isinstance(qualname, str):
        return f"{getattr(op, '__module__', '')}.{qualname}"
    return str(op)


def spec_key(spec: Spec, origin: str | None) -> str:
    """The spec's and its op's part of a verdict's key; ``origin``: the spec
    file or module it was loaded from, a recording, or None for the catalog."""
    parts: list[object] = [spec.name, op_name(spec.op)]
    if origin is not None:
        if origin not in LOADED:
            raise Unknown(f"what loading {origin} imported was not seen")
        path = Path(origin)
        if path.is_file():
            parts.append(_file(path))
        parts.append([(f, _file(f)) for f in LOADED[origin]])
    parts += _op(spec)
    return _digest(*parts)


def key(*parts: object) -> str:
    """A verdict's key of its parts (``suite``, ``machine``, ``spec_key``, ...)."""
    return _digest(*parts)
