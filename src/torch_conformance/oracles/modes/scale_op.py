"""The second mutating op a Program may call: an opaque custom op that
doubles its argument in place, as a serving stack's in-place kernels are
opaque to the compiler around them."""

from __future__ import annotations

import torch


@torch.library.custom_op("conformance_programs::scale_", mutates_args={"x"})
def scale_(x: torch.Tensor) -> None:
    """Double ``x`` in place: exact in every floating dtype."""
    x.mul_(2)


@scale_.register_fake
def _(x: torch.Tensor) -> None:
    return None
