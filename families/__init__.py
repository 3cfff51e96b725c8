"""The op families: each a package of kernels, fakes, references, strategies,
specs and zoo (see ``suites/catalog.py``, which finds them)."""

from __future__ import annotations

import importlib
from collections.abc import Callable

from kernels import triton as triton_kernels
from kernels.build import KernelsUnavailable
from oracles.core.spec import Unavailable


def prepared(register: Callable[[], None]) -> Callable[[], None]:
    """A Spec's ``prepare`` that calls ``register`` (which builds and loads the
    C++ kernels), or skips with the reason they cannot be built here."""

    def prepare() -> None:
        try:
            register()
        except KernelsUnavailable as error:
            raise Unavailable(str(error)) from error

    if register.__qualname__ == register.__name__:  # a module's function a script can call
        prepare.registers = (register.__module__, register.__name__)
    return prepare


def triton_prepare(
    module: str,
    register: str = "register_triton",
    unavailable: Callable[[], str | None] = triton_kernels.unavailable,
) -> Callable[[], None]:
    """A prepare that calls ``module.register`` (which registers Triton ops),
    or skips with the reason ``unavailable`` gives (the module imports Triton).
    By default the Triton kernels run on the Cases' CPU tensors in Triton's
    interpreter."""

    def prepare() -> None:
        problem = unavailable()
        if problem is not None:
            raise Unavailable(problem)
        getattr(importlib.import_module(module), register)()

    prepare.registers = (module, register)  # what a repro script calls to register the ops
    return prepare


def prepare_native(module: str) -> Callable[[], None]:
    """A prepare for a native Triton Spec: skips with the reason where no GPU
    runs Triton natively."""
    return triton_prepare(module, unavailable=triton_kernels.native_unavailable)
