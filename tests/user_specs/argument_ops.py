"""Ops of a user's own, defined in Python: imported by the spec module beside it."""

from __future__ import annotations

import torch


@torch.library.custom_op("user_args::pick", mutates_args=())
def pick(
    x: torch.Tensor,
    sections: list[int],
    order: list[int] | None,
    dtype: torch.dtype | None,
    fill: float,
    where: str,
    flag: bool,
) -> torch.Tensor:
    """Column blocks of x (in ``order``), cast to ``dtype``, one column set to ``fill``."""
    blocks = list(x.split(list(sections), -1))
    if order is not None:
        blocks = [blocks[i] for i in order]
    out = torch.cat(blocks, -1).to(dtype or x.dtype)
    out[..., 0 if where == "first" else -1] = fill
    return out.neg() if flag else out


@pick.register_fake
def _(x, sections, order, dtype, fill, where, flag):
    return x.new_empty((*x.shape[:-1], sum(sections)), dtype=dtype or x.dtype)


@torch.library.custom_op("user_args::with_bias", mutates_args=())
def with_bias(x: torch.Tensor, bias: torch.Tensor | None) -> torch.Tensor:
    """x with bias appended along the last dimension, or a copy of x."""
    return x.clone() if bias is None else torch.cat([x, bias], -1)


@with_bias.register_fake
def _(x, bias):
    width = x.shape[-1] + (0 if bias is None else bias.shape[-1])
    return x.new_empty((*x.shape[:-1], width))


@torch.library.custom_op("user_args::fill_out", mutates_args=("out",))
def fill_out(out: torch.Tensor, x: torch.Tensor) -> None:
    """Writes x into a caller-given output argument named ``out``."""
    out.copy_(x)


@torch.library.custom_op("user_args::shifted", mutates_args=())
def shifted(x: torch.Tensor, by: int = 1, wrap: bool = False) -> torch.Tensor:
    """x rolled (or shifted, zero-filled) by ``by`` along its last dimension."""
    if wrap:
        return x.roll(by, -1)
    out = torch.zeros_like(x, memory_format=torch.contiguous_format)
    if by < x.shape[-1]:
        out[..., by:] = x[..., : x.shape[-1] - by]
    return out


@shifted.register_fake
def _(x, by=1, wrap=False):
    return x.new_empty(x.shape)
