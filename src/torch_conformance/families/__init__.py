"""The op families: each a package of kernels, fakes, references, strategies,
specs and zoo (see ``suites/catalog.py``, which finds them)."""

from __future__ import annotations

import importlib
from collections.abc import Callable

from torch_conformance.kernels import triton as triton_kernels
from torch_conformance.kernels.build import KernelsUnavailable
from torch_conformance.oracles.core.specification import Unavailable


def prepared(register: Callable[[], None]) -> Callable[[], None]:
    """A Spec's ``prepare`` that calls ``register`` (which builds and loads the
    C++ kernels), or skips with the reason they cannot be built here."""

    def prepare() -> None:
        try:
            register()
        except KernelsUnavailable as error:
            raise Unavailable(str(error)) from error

    prepare.devices = ("cpu",)  # the C++ kernels are built for the CPU alone
    if register.__qualname__ == register.__name__:  # a module's function a script can call
        prepare.registers = (register.__module__, register.__name__)
    return prepare


def triton_prepare(
    module: str, register: str = "register_triton", devices: tuple[str, ...] = ("cpu", "cuda")
) -> Callable[[], None]:
    """A prepare that calls ``module.register`` (which registers Triton ops),
    or skips with the reason Triton cannot run them on any of ``devices``
    here (the module imports Triton). By default the kernels run on CUDA
    tensors natively and on CPU tensors in Triton's interpreter, whichever
    this process runs (``kernels.triton.unavailable_on``)."""

    def prepare() -> None:
        problems = [triton_kernels.unavailable_on(device) for device in devices]
        if all(problems):
            raise Unavailable(str(problems[0]))
        getattr(importlib.import_module(module), register)()

    prepare.registers = (module, register)  # what a repro script calls to register the ops
    prepare.devices = devices
    prepare.unavailable_on = triton_kernels.unavailable_on
    return prepare


def prepare_native(module: str) -> Callable[[], None]:
    """A prepare for a native Triton Spec: CUDA alone; skips with the reason
    where no GPU runs Triton natively."""
    return triton_prepare(module, devices=("cuda",))
