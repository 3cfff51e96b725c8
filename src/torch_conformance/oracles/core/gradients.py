"""Gradients: the upstream gradients a backward receives, and a program's
gradients with respect to the buffers behind the arguments a spec
differentiates (``Spec.grads``).

A real backward rarely receives contiguous upstream gradients: the gradient
of a transpose arrives transposed, of a slice strided, of a sum or a
broadcast expanded (stride 0). A Case says, output by output, which of these
its upstream gradients (its tangents, in autograd's word) are
(``Case.tangents``, cycled over the outputs), and the same seed gives the
same values in every run of it.

Each differentiated buffer is a leaf; the program receives a copy of it
(``torch.Tensor.clone``, recorded by autograd), so an op may write its
arguments in place as it does in a model, where they are activations.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import torch

from torch_conformance.oracles.core.buffers import Case
from torch_conformance.oracles.core.observation import flatten_outputs

CONTIGUOUS = "contiguous"
TANGENT_LAYOUTS = (CONTIGUOUS, "transposed", "strided", "expanded")


def tangent_for(output: torch.Tensor, layout: str, generator: torch.Generator) -> torch.Tensor:
    """An upstream gradient for ``output``: its shape and dtype, laid out as
    ``layout`` says where the output's rank allows (else contiguous), on its
    device (drawn on the CPU: the same values on every device)."""
    shape = tuple(output.shape)

    def fresh(size: tuple[int, ...]) -> torch.Tensor:
        drawn = torch.randn(size, generator=generator, dtype=torch.float32)
        return drawn.to(output.device, output.dtype)

    if layout == "transposed" and len(shape) >= 2:
        return fresh((*shape[:-2], shape[-1], shape[-2])).transpose(-1, -2)
    if layout == "strided" and shape:
        return fresh((*shape[:-1], 2 * shape[-1]))[..., ::2]
    if layout == "expanded" and shape:
        return fresh((1, *shape[1:])).expand(shape)
    return fresh(shape)


def differentiated(spec_grads: Sequence[str], case: Case) -> list[str]:
    """The floating-point buffers behind the arguments ``spec_grads`` names,
    in buffer order: the leaves gradients are taken with respect to."""
    behind = {getattr(case.args.get(name), "buffer", None) for name in spec_grads} - {None}
    return [
        n for n in sorted(case.buffers) if n in behind and case.buffers[n].dtype.is_floating_point
    ]


def leaves(buffers: Mapping[str, torch.Tensor], names: Sequence[str]) -> dict[str, torch.Tensor]:
    """``buffers`` with those ``names`` made leaves that require gradients."""
    return {n: (b.detach().requires_grad_() if n in names else b) for n, b in buffers.items()}


def copies(buffers: Mapping[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    """What the program receives: a recorded copy of each leaf, so that in-place
    writes are legal; other buffers as they are."""
    return {n: (b.clone() if b.requires_grad else b) for n, b in buffers.items()}


@dataclasses.dataclass(frozen=True)
class BackwardInput:
    """A tensor input of a compiled backward, as Inductor compiled for it."""

    name: str  # the backward graph's placeholder: what AOTAutograd saved
    shape: tuple[int, ...]
    stride: tuple[int, ...]


@dataclasses.dataclass
class Backward:
    """A program's forward outputs and its gradients with respect to the
    differentiated buffers (None where a buffer gets none)."""

    outputs: tuple | None
    requires_grad: tuple[bool, ...]  # per output: whether autograd records it
    grads: dict[str, torch.Tensor | None]
    tangents: dict[int, torch.Tensor]  # per output index, the upstream gradient given
    error: BaseException | None = None


def backward(
    forward: Callable[[dict[str, torch.Tensor]], Any],
    buffers: Mapping[str, torch.Tensor],
    wrt: Sequence[str],
    seed: int,
    layouts: Sequence[str],
    given: Callable[[torch.Tensor, torch.Tensor], torch.Tensor] | None = None,
) -> Backward:
    """Run ``forward`` on ``buffers`` (leaves where in ``wrt``), then
    ``torch.autograd.grad`` of its outputs, each with its upstream gradient
    (``tangents_for`` of the Case's ``seed`` and ``layouts``; what
    ``given(output, gradient)`` makes of it, where given: a known fault's
    predicted handling of it)."""
    inputs = leaves(buffers, wrt)
    try:
        outputs = flatten_outputs(forward(inputs))
    except Exception as error:
        return Backward(None, (), {}, {}, error)
    flags = tuple(isinstance(o, torch.Tensor) and o.requires_grad for o in outputs or ())
    tangents = tangents_for(seed, layouts, outputs or (), flags)
    if given is not None:
        tangents = {i: given(outputs[i], g) for i, g in tangents.items()}  # type: ignore[index]
    grads: dict[str, torch.Tensor | None] = dict.fromkeys(wrt)
    if tangents:
        try:
            got = torch.autograd.grad(
                [outputs[i] for i in tangents],  # type: ignore[index]
                [inputs[n] for n in wrt],
                [tangents[i] for i in tangents],
                allow_unused=True,
            )
        except Exception as error:
            return Backward(outputs, flags, grads, tangents, error)
        grads = dict(zip(wrt, got, strict=True))
    return Backward(outputs, flags, grads, tangents)


def tangents_for(
    seed: int, layouts: Sequence[str], outputs: Sequence[Any], flags: Sequence[bool]
) -> dict[int, torch.Tensor]:
    """Per differentiable output, its upstream gradient in the Case's layout for
    it (``layouts`` cycled; none: contiguous); the Case's seed makes them the
    same in every run."""
    generator = torch.Generator().manual_seed(seed + 1)
    layouts = tuple(layouts) or (CONTIGUOUS,)
    return {
        i: tangent_for(outputs[i], layouts[k % len(layouts)], generator)
        for k, i in enumerate(i for i, flag in enumerate(flags) if flag)
    }
