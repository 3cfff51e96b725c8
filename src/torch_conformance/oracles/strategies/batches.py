"""Batches of Cases that share a Signature, derived from any strategy of Cases."""

from __future__ import annotations

import dataclasses

from hypothesis import strategies as st

from torch_conformance.oracles.core.buffers import Case
from torch_conformance.oracles.core.signature import signature_of


@st.composite
def derived_batches(draw: st.DrawFn, cases: st.SearchStrategy[Case], size: int) -> list[Case]:
    """Batches from any strategy of Cases: a first Case, then Cases drawn
    again that share its Signature (other sizes, one compiled program); a
    draw of another structure gives way to the first Case with other values."""
    first = draw(cases)
    signature = signature_of(first)[0]
    batch = [first]
    while len(batch) < size:
        other = draw(cases)
        if signature_of(other)[0] != signature:
            other = dataclasses.replace(first, seed=draw(st.integers(0, 2**32 - 1)))
        batch.append(other)
    return batch
