"""Inductor's Triton backend for CPU tensors, run through Triton's interpreter.

``torch._inductor.config.cpu_backend = "triton"`` makes Inductor emit
``@triton.jit`` kernels for CPU tensors; ``TRITON_INTERPRET=1`` runs them in
Triton's interpreter, so Inductor's Triton code generation (indexing, masks,
the wrapper) is checked without a GPU. Bugs in Triton's own compiler are out
of its reach.

Triton reads ``TRITON_INTERPRET`` when a ``@triton.jit`` function is
defined, its own library's included, so it must be set before ``triton`` is
imported (Inductor imports it): the suite's entry points set it on machines
without CUDA (``kernels.interpreter``), and ``unavailable``
says so where it is off.

One shim makes it work: torch hashes the active Triton backend into its
cache keys and asks Triton's driver for it, and without a GPU Triton has no
active driver ("0 active drivers"). While the mode runs, the hash gets a
fixed value. ``tests/compiled/test_modes.py`` fails when a release no longer needs
the shim, or when it stops working.
"""

from __future__ import annotations

import contextlib
import functools
import importlib.util
import os
import warnings
from collections.abc import Iterator

import torch.utils._triton as torch_triton

# Stands in for the backend hash of the interpreter, which has no driver.
INTERPRETER_HASH = "triton-interpreter-on-cpu"


def unavailable() -> str | None:
    """Why the Triton backend cannot run here, or None."""
    if importlib.util.find_spec("triton") is None:
        return "Triton is not installed: pip install triton (it installs on CPU-only machines)"
    if os.environ.get("TRITON_INTERPRET") != "1":
        return (
            "the Cases are CPU tensors and Triton's interpreter is off: set TRITON_INTERPRET=1 "
            "before the run (a GPU machine does not set it by itself)"
        )
    return None


@functools.cache
def needs_shim() -> bool:
    """Whether torch's backend hash fails for want of an active Triton driver."""
    try:
        torch_triton.triton_hash_with_backend()
    except RuntimeError:
        return True
    return False


# What a repro script does instead of ``interpreted``, for its whole run.
SCRIPT_SETUP = f"""
# Inductor's Triton kernels run in Triton's interpreter; torch's backend hash
# needs an active Triton driver, which a machine without a GPU lacks.
os.environ["TRITON_INTERPRET"] = "1"
import torch.utils._triton

try:
    torch.utils._triton.triton_hash_with_backend()
except RuntimeError:
    torch.utils._triton.triton_hash_with_backend = lambda: {INTERPRETER_HASH!r}
"""


@contextlib.contextmanager
def interpreted() -> Iterator[None]:
    """torch's Triton backend hash works without a driver."""
    previous_hash = torch_triton.triton_hash_with_backend
    if needs_shim():
        torch_triton.triton_hash_with_backend = lambda: INTERPRETER_HASH  # type: ignore[assignment]
    try:
        with warnings.catch_warnings():
            # The interpreter is the backend: Inductor's warning that none is
            # active says nothing here.
            warnings.filterwarnings("ignore", "Could not find an active CPU backend")
            yield
    finally:
        torch_triton.triton_hash_with_backend = previous_hash
