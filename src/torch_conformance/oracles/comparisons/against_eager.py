"""A program run another way against the same program run eagerly: what the
compiled and programs checks judge, stated once for the suite and for the
repro scripts they write (which copy this function)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import torch

from torch_conformance.oracles.comparisons.outputs import (
    aliasing,
    metadata,
    output_aliasing,
    output_label,
    past_storage,
    reaches_past,
    structure,
)
from torch_conformance.oracles.comparisons.values import bit_exact, within_ulps
from torch_conformance.oracles.core.findings import Finding

# A run's outputs and its buffers after the call.
Run = tuple[Any, Mapping[str, torch.Tensor]]


def against_eager(
    eager: Run,
    other: Run,
    mode: str,
    budget: int | None = None,
    expected: Callable[[], tuple[Any, Mapping[str, Any]]] | None = None,
    intermediate: frozenset[int] = frozenset(),
    outputs: bool = True,
) -> list[Finding]:
    """The outputs and buffers after the call of ``other`` (run in ``mode``)
    against ``eager``'s: structure, metadata, aliasing, then values, bit for
    bit where ``budget`` is None and otherwise within ``budget`` ULP of the
    float64 program's, ``expected()``; ``intermediate``: the outputs that are views of tensors
    the program made, whose strides torch.compile does not promise;
    ``outputs`` False compares the buffers alone."""
    (want_outputs, want_buffers), (got_outputs, got_buffers) = eager, other
    found = structure(want_outputs, got_outputs, mode, "eager") if outputs else []
    if found:
        return found
    pairs = (
        [
            (i, output_label(i), want, got)
            for i, (want, got) in enumerate(zip(want_outputs or (), got_outputs or (), strict=True))
            if isinstance(want, torch.Tensor)
        ]
        if outputs
        else []
    )
    overrun = [past_storage(label, got, mode, want) for _, label, want, got in pairs]
    found += [f for f in overrun if f is not None]
    pairs = [pair for pair in pairs if not reaches_past(pair[2]) and not reaches_past(pair[3])]
    for i, label, want, got in pairs:
        found += metadata(label, want, got, mode, "eager", i not in intermediate)
        found += aliasing(label, want, want_buffers, got, got_buffers, mode, "eager")
    if outputs:
        found += output_aliasing(want_outputs or (), got_outputs or (), mode)
    if budget is None:
        # Compared as raw bits: NaN equals NaN, -0.0 differs from 0.0.
        for _, label, want, got in pairs:
            found += bit_exact(label, got, want, mode, "eager")
        for name, want in want_buffers.items():
            found += bit_exact(buffer_label(name), got_buffers[name], want, mode, "eager")
        return found
    # Judged by a ULP budget against the float64 program, not bit for bit:
    # Inductor may reorder its arithmetic.
    assert expected is not None, "a ULP budget is judged against the float64 program"
    expected_outputs, expected_buffers = expected()
    for i, label, _, got in pairs:
        found += within_ulps(label, got, expected_outputs[i], budget, mode)
    for name, want in expected_buffers.items():
        found += within_ulps(buffer_label(name), got_buffers[name], want, budget, mode)
    return found


def buffer_label(name: str) -> str:
    """How a message names a buffer after the program ran."""
    return f"buffer {name!r} after the call"
