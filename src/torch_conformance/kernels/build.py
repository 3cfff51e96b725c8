"""Builds the C++ reference kernels once per torch version and loads them.

The sources are every family's ``csrc/*.cpp`` (``families/<name>/csrc``),
found rather than listed, each family's ``csrc`` and the shared
``kernels/csrc`` on the include path; they
build into one library. The extension lands in the user's cache folder
(``builds/`` under ``oracles.core.locations.cache_root``), in a folder named
for the torch version, so a torch upgrade gets a fresh build and a re-run
reuses the old one (ninja rebuilds only what changed).
"""

from __future__ import annotations

import functools
import os
import shutil
from pathlib import Path

import torch

from torch_conformance.oracles.core.locations import PACKAGE, cache_root

FAMILIES = PACKAGE / "families"


class KernelsUnavailable(RuntimeError):
    """The C++ reference kernels cannot be built on this machine."""


def build_directory() -> Path:
    tag = torch.__version__.replace("+", "_")
    return cache_root() / "builds" / f"torch-{tag}"


def sources() -> list[Path]:
    """Every family's C++ sources, in a stable order."""
    return sorted(FAMILIES.glob("*/csrc/*.cpp"))


def load_kernels() -> None:
    """Build (or reuse) and load the extension; its ops register on load."""
    failure = _build()
    if failure is not None:
        raise KernelsUnavailable(failure)


@functools.cache
def _build() -> str | None:
    """Build once per process; remember a failure rather than retry it."""
    problem = toolchain_problem()
    if problem is not None:
        return problem
    from torch.utils import cpp_extension

    directory = build_directory()
    directory.mkdir(parents=True, exist_ok=True)
    try:
        cpp_extension.load(
            name="conformance_kernels",
            sources=[str(source) for source in sources()],
            extra_include_paths=[
                str(PACKAGE / "kernels" / "csrc"),
                *sorted({str(source.parent) for source in sources()}),
            ],
            extra_cflags=["-O2"],
            build_directory=str(directory),
            is_python_module=False,
            verbose=False,
        )
    except (RuntimeError, OSError) as error:
        return f"building the C++ reference kernels failed: {error}"
    return None


def toolchain_problem() -> str | None:
    """Why the kernels cannot be built here, or None."""
    compiler = os.environ.get("CXX", "c++")
    if shutil.which(compiler) is None:
        return (
            f"no C++ compiler: {compiler!r} is not on PATH; install one "
            "(e.g. g++) or set CXX to build the reference kernels"
        )
    from torch.utils import cpp_extension

    if not cpp_extension.is_ninja_available():
        return "ninja is not installed: pip install ninja"
    return None
