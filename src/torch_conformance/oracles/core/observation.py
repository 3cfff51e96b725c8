"""An Observation: what one run of a Case in one Mode showed."""

from __future__ import annotations

import dataclasses
from typing import Any

import torch


@dataclasses.dataclass
class Observation:
    """What one run of a Case in one Mode showed."""

    mode: str
    args: dict[str, Any]
    outputs: tuple | None  # None when the op (or program) returned None
    buffers_before: dict[str, torch.Tensor]
    buffers_after: dict[str, torch.Tensor]
    error: BaseException | None = None
    vacuity: str | None = None  # why a compiled run proves nothing


def flatten_outputs(result: Any) -> tuple | None:
    if result is None:
        return None
    if isinstance(result, (tuple, list)):
        return tuple(result)
    return (result,)
