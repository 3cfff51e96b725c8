"""The op families: each a package of kernels, fakes, references, strategies,
specs and zoo (see ``suites/catalog.py``, which finds them)."""

from __future__ import annotations

from collections.abc import Callable

from kernels.build import KernelsUnavailable
from oracles.spec import Unavailable


def prepared(register: Callable[[], None]) -> Callable[[], None]:
    """A Spec's ``prepare`` that calls ``register`` (which builds and loads the
    C++ kernels), or skips with the reason they cannot be built here."""

    def prepare() -> None:
        try:
            register()
        except KernelsUnavailable as error:
            raise Unavailable(str(error)) from error

    return prepare
