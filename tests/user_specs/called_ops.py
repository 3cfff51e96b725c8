"""A library whose ops register when a function is called, not on import."""

from __future__ import annotations

import functools

import torch


@functools.cache
def register() -> None:
    library = torch.library.Library("called_user", "DEF")
    library.define("twice(Tensor x) -> Tensor")
    library.impl("twice", lambda x: x * 2, "CPU")
    torch.library.register_fake("called_user::twice", lambda x: x.new_empty(x.shape), lib=library)
    register.library = library  # kept alive: the registrations die with it
