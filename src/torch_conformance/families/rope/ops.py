"""The rotary-embedding family: the C++ ops' fakes and the pure-PyTorch form."""

from __future__ import annotations

import functools

import torch

from torch_conformance.kernels.build import load_kernels


@functools.cache
def register() -> None:
    """Build and load the C++ ops and register their fakes (once)."""
    load_kernels()

    @torch.library.register_fake("conformance::rotary_embedding")
    def _(positions, query, key, head_size, cos_sin_cache, is_neox) -> None:
        return None

    torch.library.register_fake(
        "conformance::rotary_embedding_functional", rotary_embedding_functional_fake
    )
    register_rotated_back("rotary_embedding_functional")


def rotary_embedding_functional_fake(
    positions: torch.Tensor,
    query: torch.Tensor,
    key: torch.Tensor,
    head_size: int,
    cos_sin_cache: torch.Tensor,
    is_neox: bool,
) -> tuple[torch.Tensor, torch.Tensor]:
    # The kernels return fresh contiguous tensors whatever the input layout;
    # empty_like would keep a permuted input's strides.
    return query.new_empty(query.shape), key.new_empty(key.shape)


def register_rotated_back(name: str) -> None:
    """Register the backward of the functional rope op ``conformance::<name>``:
    the inverse rotation, by the same op."""

    def rotated_back(ctx, grad_query, grad_key):
        """The backward of a rotation is the inverse rotation: the same kernel,
        with ``sin`` negated (as training libraries run their rope kernel
        backwards). Gradients arrive in any layout; the kernel takes them so."""
        positions, cos_sin_cache = ctx.saved_tensors
        cos, sin = cos_sin_cache.chunk(2, dim=-1)
        inverse = torch.cat((cos, -sin), dim=-1)
        grad_query, grad_key = getattr(torch.ops.conformance, name)(
            positions, grad_query, grad_key, ctx.head_size, inverse, ctx.is_neox
        )
        return None, grad_query, grad_key, None, None, None

    torch.library.register_autograd(
        f"conformance::{name}", rotated_back, setup_context=_save_rotation
    )


def _save_rotation(ctx, inputs, output) -> None:
    positions, _, _, head_size, cos_sin_cache, is_neox = inputs
    ctx.save_for_backward(positions, cos_sin_cache)
    ctx.head_size, ctx.is_neox = head_size, is_neox


def rotary_embedding_torch(
    positions: torch.Tensor,
    query: torch.Tensor,
    key: torch.Tensor,
    head_size: int,
    cos_sin_cache: torch.Tensor,
    is_neox: bool,
) -> tuple[torch.Tensor, torch.Tensor]:
    """What model code runs when no kernel is present: fresh rotated tensors."""
    cos, sin = cos_sin_cache[positions].unsqueeze(-2).chunk(2, dim=-1)
    return (
        rotate_heads(query, cos, sin, head_size, is_neox),
        rotate_heads(key, cos, sin, head_size, is_neox),
    )


def rotate_heads(
    x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor, head_size: int, is_neox: bool
) -> torch.Tensor:
    """``x``'s heads rotated by ``cos`` and ``sin`` in ``x``'s own dtype."""
    rotary_dim = cos.shape[-1] * 2
    heads = x.unflatten(-1, (-1, head_size)) if x.dim() == 2 else x
    rot, passed = heads[..., :rotary_dim], heads[..., rotary_dim:]
    if is_neox:
        a, b = rot.chunk(2, dim=-1)
        rotated = torch.cat((a * cos - b * sin, b * cos + a * sin), dim=-1)
    else:
        a, b = rot[..., 0::2], rot[..., 1::2]
        rotated = torch.stack((a * cos - b * sin, b * cos + a * sin), dim=-1).flatten(-2)
    return torch.cat((rotated, passed), dim=-1).reshape(x.shape)
