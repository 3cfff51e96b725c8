"""The same Cases whatever ran before: a derandomized search draws them from
its seed alone.

Hypothesis draws about one value in twenty from a pool of the literal
constants in every local module loaded so far (``sys.modules``). Which of the
suite's modules are loaded depends on which tests ran before in the worker
(families, kernels and repro scripts load when first needed), so the same
derandomized check drew other Cases in another test order or on another
worker. While a property runs, that pool is empty: Hypothesis's own
constants (its edge values) still come in, the loaded modules' do not.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from hypothesis.internal.conjecture import providers


@contextlib.contextmanager
def same_draws() -> Iterator[None]:
    """Draws that do not depend on the modules loaded (where Hypothesis
    has such a pool at all)."""
    pooled = getattr(providers, "_get_local_constants", None)
    if pooled is None:
        yield
        return
    empty = pooled().__class__(
        integers=providers.SortedSet(),
        floats=providers.SortedSet(key=providers.float_to_int),
        bytes=providers.SortedSet(),
        strings=providers.SortedSet(),
    )
    # Values already allowed from the pool are cached per kind of draw.
    providers.CONSTANTS_CACHE.cache.clear()
    providers._get_local_constants = lambda: empty
    try:
        yield
    finally:
        providers._get_local_constants = pooled
        providers.CONSTANTS_CACHE.cache.clear()
