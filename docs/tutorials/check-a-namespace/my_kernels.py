"""A small kernel library of your own, ``my_ns``: an RMS norm, and a gated
activation whose fake gets its output's shape wrong (the planted bug the
tutorial finds)."""

import torch

torch.library.define("my_ns::rms_norm", "(Tensor x, Tensor weight, float eps) -> Tensor")
torch.library.define("my_ns::silu_and_mul", "(Tensor x) -> Tensor")


@torch.library.impl("my_ns::rms_norm", "cpu")
def _(x, weight, eps):
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * weight


@torch.library.register_fake("my_ns::rms_norm")
def _(x, weight, eps):
    return torch.empty_like(x)


@torch.library.impl("my_ns::silu_and_mul", "cpu")
def _(x):
    gate, up = x.chunk(2, -1)
    return torch.nn.functional.silu(gate) * up


@torch.library.register_fake("my_ns::silu_and_mul")
def _(x):
    return x.new_empty(x.shape)  # the planted bug: the kernel returns half the last dimension
