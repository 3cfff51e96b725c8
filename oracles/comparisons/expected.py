"""The float64 expectation of a whole program, for specs judged by ULP budget.

The program only moves data, so running it in float64 with the op replaced
by a stand-in that produces the reference's values (and, in a second run,
their scales) gives the expected program outputs and buffers.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch

from oracles.core.observation import flatten_outputs
from oracles.core.reference import Expectation, Expected


def _program_in_float64(
    program: Callable[..., Any],
    bind: Callable[[dict[str, torch.Tensor]], dict[str, Any]],
    originals: dict[str, torch.Tensor],
    expectation: Expectation,
    field: str,
) -> tuple[Any, dict[str, torch.Tensor]]:
    buffers = {
        name: (b.to(torch.float64) if b.is_floating_point() else b.clone())
        for name, b in originals.items()
    }
    if field == "scale":
        buffers = {n: (b.abs() if b.is_floating_point() else b) for n, b in buffers.items()}

    def stand_in(**args: Any) -> Any:
        for name, expected in expectation.writes.items():
            args[name].copy_(getattr(expected, field))
        outputs = tuple(getattr(e, field) for e in expectation.outputs)
        if not outputs:
            return None
        return outputs[0] if len(outputs) == 1 else outputs

    result = program(stand_in, **bind(buffers))
    return result, buffers


def program_expectation(
    program: Callable[..., Any],
    reference: Callable[..., Expectation],
    originals: dict[str, torch.Tensor],
    bind: Callable[[dict[str, torch.Tensor]], dict[str, Any]],
) -> tuple[tuple | None, dict[str, Expected]]:
    """What ``program`` gives in float64 with the op replaced by ``reference``'s
    values (and, in a second run, their scales): its outputs and buffers, from
    the Case's buffers ``originals`` and ``bind`` making the op's arguments of them."""
    expectation = reference(**bind(originals))
    values, value_buffers = _program_in_float64(program, bind, originals, expectation, "value")
    scales, scale_buffers = _program_in_float64(program, bind, originals, expectation, "scale")
    values, scales = flatten_outputs(values), flatten_outputs(scales)
    outputs = (
        None
        if values is None
        else tuple(
            Expected(v.to(torch.float64), s.to(torch.float64).abs())
            for v, s in zip(values, scales or (), strict=False)
        )
    )
    buffers = {
        name: Expected(
            value_buffers[name].to(torch.float64), scale_buffers[name].to(torch.float64).abs()
        )
        for name in value_buffers
    }
    return outputs, buffers
