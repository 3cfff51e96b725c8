"""A Mode: one way to run a Case, with one ``run`` signature for all:
``run(spec, case, how=OP_ALONE) -> Observation``, ``how`` a :class:`Run`.

Every message names a Mode by its ``name``, the one word for it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import torch

from torch_conformance.oracles.core.buffers import Case
from torch_conformance.oracles.core.devices import ANYWHERE, elsewhere
from torch_conformance.oracles.core.observation import Observation, flatten_outputs
from torch_conformance.oracles.core.signature import BatchSignature
from torch_conformance.oracles.core.specification import Spec


@dataclasses.dataclass(frozen=True)
class Run:
    """How a Mode runs a Case.

    ``program``: the Case's program around the op
    (``oracles.modes.programs.around``), not the op alone. The rest say how a
    compiled Mode compiles (Modes that compile nothing ignore them):
    ``batch``, once for a batch of Cases, symbolic in what varies across it;
    ``dynamic``, a Case alone with every size symbolic; ``fresh``, a compile
    of its own, not shared with other Cases.
    """

    program: bool = False
    batch: BatchSignature | None = None
    dynamic: bool = False
    fresh: bool = False


OP_ALONE = Run()
IN_PROGRAM = Run(program=True)


class Mode:
    """A way to run a Case."""

    name: str
    what: str  # what the Mode is, in words, for messages and the reference pages
    # The device types it makes sense on, and why not on the others.
    devices: tuple[str, ...] = ANYWHERE
    off_device: str = ""

    def run(self, spec: Spec, case: Case, how: Run = OP_ALONE) -> Observation:
        raise NotImplementedError

    def unavailable(self, spec: Spec) -> str | None:
        """Why this Mode cannot run ``spec`` here, or None."""
        return None

    def unavailable_on(self, device: str) -> str | None:
        """Why this Mode makes no sense on ``device``, or None."""
        return elsewhere(f"the {self.name} mode", self.devices, device, self.off_device)

    @property
    def batch_program(self) -> str:
        """What the Cases of a batch share when this Mode runs them."""
        return "sharing one program compiled with dynamic shapes"


def snapshot(buffers: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    return {name: buffer.clone() for name, buffer in buffers.items()}


def observe(
    mode: str,
    call: Callable[[], Any],
    args: dict[str, Any],
    buffers: dict[str, torch.Tensor],
    before: dict[str, torch.Tensor],
) -> Observation:
    """Run ``call``: its outputs, or the error it raised (the op's own failure
    is an observation)."""
    error, result = None, None
    try:
        result = call()
    except Exception as exc:
        error = exc
    return Observation(
        mode=mode,
        args=args,
        outputs=flatten_outputs(result),
        buffers_before=before,
        buffers_after=buffers,
        error=error,
    )
