"""The float64 expectation of a whole program, for specs judged by ULP budget.

The program only moves data, so running it in float64 with the op replaced
by a stand-in that produces the reference's values (and, in a second run,
their scales) gives the expected program outputs and buffers.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import torch

from torch_conformance.oracles.core.expectation import Expectation, Expected, float64_leaf, on_cpu
from torch_conformance.oracles.core.observation import flatten_outputs


def _program_in_float64(
    program: Callable[..., Any],
    bind: Callable[[dict[str, torch.Tensor]], dict[str, Any]],
    originals: dict[str, torch.Tensor],
    expectation: Expectation,
    field: str,
) -> tuple[Any, dict[str, torch.Tensor]]:
    buffers = {
        name: (b.to(torch.float64, copy=True) if b.is_floating_point() else b.clone())
        for name, b in originals.items()
    }
    if field != "value":  # a scale run: the program on magnitudes
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
    scale: str = "scale",
) -> tuple[tuple | None, dict[str, Expected]]:
    """What ``program`` gives in float64 with the op replaced by ``reference``'s
    values (and, in a second run, their scales, or the Expected attribute
    ``scale`` names): its outputs and buffers, from the Case's buffers
    ``originals`` (on the CPU, copied there from any other device) and
    ``bind`` making the op's arguments of them."""
    originals = on_cpu(originals)
    expectation = reference(**bind(originals))
    values, value_buffers = _program_in_float64(program, bind, originals, expectation, "value")
    scales, scale_buffers = _program_in_float64(program, bind, originals, expectation, scale)
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


class NotDifferentiable(ValueError):
    """The float64 program (the reference in the op's place) records no
    gradient for what the op's outputs depend on."""


def gradient_expectation(
    program: Callable[..., Any],
    reference: Callable[..., Expectation],
    originals: dict[str, torch.Tensor],
    bind: Callable[[dict[str, torch.Tensor]], dict[str, Any]],
    wrt: list[str],
    tangents: dict[int, torch.Tensor],
) -> dict[str, Expected | None]:
    """The float64 gradients of ``program``'s outputs (``reference`` in the
    op's place) with respect to the buffers ``wrt``, each output ``i`` given
    ``tangents[i]``. A gradient's scale is the gradient of the outputs'
    gradient scales (``Expected.gradient_scale``: their scales, unless the
    reference writes one) weighted by the upstream gradients' magnitudes: for
    arithmetic linear in each input (a rotation, a selection) that is the sum
    of the magnitudes of the terms the gradient adds up, so cancellation is
    judged by the rounding its terms allow, as outputs are. It is computed
    on the CPU, from copies of a device's buffers and upstream gradients."""
    tangents = on_cpu(tangents)
    leaves = {n: (float64_leaf(b) if n in wrt else b) for n, b in on_cpu(originals).items()}
    outputs, _ = program_expectation(program, reference, leaves, bind, "gradient_scale")
    assert outputs is not None, "upstream gradients come from outputs"
    value = sum((outputs[i].value * g.to(torch.float64)).sum() for i, g in tangents.items())
    scale = sum((outputs[i].scale * g.to(torch.float64).abs()).sum() for i, g in tangents.items())
    inputs = [leaves[n] for n in wrt]
    if not isinstance(value, torch.Tensor) or not value.requires_grad:
        raise NotDifferentiable(
            "the reference records no gradient of the outputs: write it with "
            "differentiable torch operations on its tensor arguments"
        )
    values = torch.autograd.grad(value, inputs, allow_unused=True, retain_graph=True)
    scales: Sequence[torch.Tensor | None] = (
        torch.autograd.grad(scale, inputs, allow_unused=True)
        if isinstance(scale, torch.Tensor) and scale.requires_grad
        else [None] * len(inputs)
    )
    return {
        n: None if v is None else Expected(v, torch.zeros_like(v) if s is None else s.abs())
        for n, v, s in zip(wrt, values, scales, strict=True)
    }
