"""A registry's ops, their fakes made in a loop inside a function (closures
with no source of their own), as one serving library registers them."""

from __future__ import annotations

import torch

LIB = torch.library.Library("closure_user", "DEF")
SCALES = {"double": 2.0, "triple": 3.0}


def register_fake_ops() -> None:
    for name, scale in SCALES.items():
        LIB.define(f"{name}(Tensor x) -> Tensor")
        LIB.impl(name, lambda x, scale=scale: x * scale, "CPU")

        @torch.library.register_fake(f"closure_user::{name}", lib=LIB)
        def _(x):
            return x.new_empty(x.shape)


register_fake_ops()
