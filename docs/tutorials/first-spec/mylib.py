"""The op the first-spec tutorial checks: ``mylib::scale``, its CPU kernel
and its fake (a kernel library of your own would hold these)."""

import torch

torch.library.define("mylib::scale", "(Tensor x, float alpha) -> Tensor")


@torch.library.impl("mylib::scale", "cpu")
def _(x, alpha):
    return (x * alpha).contiguous()


@torch.library.register_fake("mylib::scale")
def _(x, alpha):
    return x.new_empty(x.shape)  # the kernel returns a fresh contiguous tensor
