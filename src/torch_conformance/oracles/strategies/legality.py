"""What makes a generated program legal, judged on shadows of its values.

A shadow is an int64 tensor with a value's shape and strides whose elements
are the flat positions, in the value's storage, of the elements it covers:
a Case buffer's shadow is ``arange(numel)``, and a view's shadow is the same
view of its base's shadow. Overlap is then judged on storage positions, which
is exact where eager's own overlap check gives up ("too hard") on strided
views.

Eager leaves some programs undefined, and no compiler can be held to them:
- an in-place write through a view with internal overlap (``expand``, an
  overlapping ``unfold``), anywhere in the chain of views it was made by;
- an in-place update whose source partly overlaps its destination (the same
  storage positions at other places).
And the compiler refuses some legal programs by design, so their refusal is
an expected error, not a Finding: a write through ``as_strided`` or
``unfold`` views, which functionalization cannot always invert.
"""

from __future__ import annotations

import re

import torch

# Why the compiler refuses a write through the view kinds it names.
EXPECTED_REFUSALS = {
    "unfold": re.compile(r"internal overlap|unfold", re.IGNORECASE),
    "as_strided": re.compile(r"as_strided", re.IGNORECASE),
}


def internally_overlapping(shadow: torch.Tensor) -> bool:
    """Two elements of the view are one storage position."""
    return shadow.unique().numel() != shadow.numel()


def overlap(a: torch.Tensor, b: torch.Tensor, same_storage: bool) -> str:
    """How two views' elements meet: ``none``, ``same`` (element for element
    the same positions, with the same strides) or ``partial``. Eager refuses
    an in-place update between views that meet with other strides, even
    where only the strides of size-1 dimensions differ."""
    if not same_storage or not bool(torch.isin(a.reshape(-1), b.reshape(-1)).any()):
        return "none"
    if a.shape == b.shape and a.stride() == b.stride() and torch.equal(a, b):
        return "same"
    return "partial"


def expected_refusal(written_through: frozenset[str], error: BaseException) -> str | None:
    """The view kind whose refusal ``error`` is, where the program writes
    through such a view; None if the error is no expected refusal."""
    text = str(error)
    for kind, pattern in EXPECTED_REFUSALS.items():
        if kind in written_through and pattern.search(text):
            return kind
    return None
