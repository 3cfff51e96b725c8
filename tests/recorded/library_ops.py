"""Ops registered as a kernel library's Python package often registers
them, through ``torch.library.Library`` alone: one with a CPU kernel and a
Meta kernel (no ``register_fake``), and one that decomposes
(CompositeImplicitAutograd), which no dispatch mode sees."""

from __future__ import annotations

import torch

library = torch.library.Library("conformance_tied", "FRAGMENT")
library.define("negated(Tensor x) -> Tensor")
library.impl("negated", lambda x: -x, "CPU")
library.impl("negated", lambda x: torch.empty_like(x), "Meta")
library.define("halved(Tensor x) -> Tensor")
library.impl("halved", lambda x: x / 2, "CompositeImplicitAutograd")
