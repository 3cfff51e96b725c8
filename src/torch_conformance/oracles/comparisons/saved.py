"""The saved-tensor comparison: the tensors a compiled forward saved for its
backward against the layouts Inductor compiled that backward for.

Inductor compiles the backward from the fakes the forward traced (when it
first runs): where the forward saves an op's output, the backward indexes
it by the strides the op's fake claimed. Size asserts check them when the backward runs; a Mode
without them (``inductor_no_size_asserts``) reads the wrong elements.
Eagerly, the op's formula gets what its forward returned, so eager and
compiled saved tensors do not pair (the partitioner chooses what is saved):
the compiled run is judged against its own compile.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch

from torch_conformance.oracles.core.findings import Finding
from torch_conformance.oracles.core.gradients import BackwardInput
from torch_conformance.oracles.core.verdicts import FAKE


def _significant(shape: Sequence[int], stride: Sequence[int]) -> tuple[int | None, ...]:
    """Strides as indexing reads them: none in a dimension of size 1."""
    return tuple(s if n > 1 else None for n, s in zip(shape, stride, strict=True))


def saved_layouts(
    saved: Sequence[torch.Tensor], compiled_for: Sequence[BackwardInput], mode: str
) -> list[Finding]:
    """A Finding per saved tensor whose shape or significant strides are not
    those its compiled backward was compiled for. Saved tensors that do not
    pair with the backward's inputs one to one (another count) say nothing."""
    if len(saved) != len(compiled_for):
        return []
    found = []
    for i, (tensor, wanted) in enumerate(zip(saved, compiled_for, strict=True)):
        shape, stride = tuple(tensor.shape), tuple(tensor.stride())
        if shape == wanted.shape and _significant(shape, stride) == _significant(
            wanted.shape, wanted.stride
        ):
            continue
        found.append(
            Finding(
                FAKE,
                f"saved tensor {i} ({wanted.name}) reached the backward {mode} compiled with "
                f"shape {list(shape)} and strides {stride}, but that backward was compiled "
                f"for shape {list(wanted.shape)} and strides {wanted.stride}, as the fakes "
                "claimed when the forward traced: an op's fake claims another layout than "
                "its kernel gives (the fake check names it), and the compiled backward "
                "indexes the saved tensor by the fake's",
            )
        )
    return found
