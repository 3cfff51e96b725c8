"""The torch.compile conformance suite: every custom op run eagerly, under
FakeTensor and compiled by Inductor, and the three held to agree.

What a spec file imports is public, and stable across releases:

- ``torch_conformance.spec``: ``Spec``, ``SpecError``, ``Unavailable`` and
  the default programs (``read_outputs``, ``call_op``, ...);
- ``torch_conformance.case``: ``Case``, ``Buffer``, ``View``, ``DEFAULT``;
- ``torch_conformance.reference``: ``Expectation``, ``Expected`` and the
  ULP helpers; ``torch_conformance.domain``: ``Domain``;
- ``torch_conformance.layouts``, ``.rows``, ``.properties``: strategies of
  layouts, rows and batches; ``torch_conformance.recorded``:
  ``recorded_spec``; ``torch_conformance.registry``: ``register_fallbacks``.

The most used names are here too (``from torch_conformance import Spec,
Case, Buffer, View``), loaded when first read: importing the package costs
nothing (pytest imports its plugin in every run). Everything under
``torch_conformance.oracles`` and the other subpackages is internal.
"""

from __future__ import annotations

import importlib
from typing import Any

# Each name read from the package, and the public module that holds it.
_PUBLIC = {
    "Spec": "spec",
    "SpecError": "spec",
    "Unavailable": "spec",
    "read_outputs": "spec",
    "call_op": "spec",
    "Case": "case",
    "Buffer": "case",
    "View": "case",
    "DEFAULT": "case",
    "Expectation": "reference",
    "Expected": "reference",
    "Domain": "domain",
    "strided_layouts": "layouts",
    "recorded_spec": "recorded",
    "register_fallbacks": "registry",
}

__all__ = sorted(_PUBLIC)


def __getattr__(name: str) -> Any:
    module = _PUBLIC.get(name)
    if module is None:
        raise AttributeError(f"module 'torch_conformance' has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{module}"), name)
