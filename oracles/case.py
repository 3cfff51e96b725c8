"""A Case: the buffers an example allocates and the views its op receives.

A Case holds no tensors. It describes each buffer (shape, dtype, how to fill
it) and each tensor argument as a chain of view operations on a buffer, so the
same views can be made eagerly, on fake buffers, and inside a compiled graph
(``qkv.split(...)`` as model code does). Materializing twice gives equal,
independent tensors.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

import torch

# One view operation: ("split", sizes, dim, index), ("view", shape),
# ("permute", dims), ("narrow", dim, start, length) or ("expand", shape).
ViewOp = tuple


@dataclasses.dataclass(frozen=True)
class Buffer:
    """A fresh allocation. ``fill`` is ``"normal"`` or ``("randint", low, high)``."""

    shape: tuple[int, ...]
    dtype: torch.dtype
    fill: str | tuple = "normal"

    def allocate(self, generator: torch.Generator) -> torch.Tensor:
        if self.fill == "normal":
            wide = torch.float64 if self.dtype == torch.float64 else torch.float32
            return torch.randn(self.shape, generator=generator, dtype=wide).to(self.dtype)
        kind, low, high = self.fill
        assert kind == "randint", f"unknown fill {self.fill!r}"
        return torch.randint(low, high, self.shape, generator=generator, dtype=self.dtype)


@dataclasses.dataclass(frozen=True)
class View:
    """An argument made from ``buffer`` by applying ``ops`` in order."""

    buffer: str
    ops: tuple[ViewOp, ...] = ()


def apply_view_ops(tensor: torch.Tensor, ops: tuple[ViewOp, ...]) -> torch.Tensor:
    for op in ops:
        name, *params = op
        if name == "split":
            sizes, dim, index = params
            tensor = tensor.split(list(sizes), dim)[index]
        elif name == "view":
            tensor = tensor.view(params[0])
        elif name == "permute":
            tensor = tensor.permute(params[0])
        elif name == "narrow":
            tensor = tensor.narrow(*params)
        elif name == "expand":
            tensor = tensor.expand(params[0])
        else:
            raise ValueError(f"unknown view operation {op!r}")
    return tensor


@dataclasses.dataclass(frozen=True)
class Case:
    """One example: buffers, the op's arguments (Views or plain values), a seed."""

    buffers: Mapping[str, Buffer]
    args: Mapping[str, Any]
    seed: int = 0
    label: str = ""

    def allocate(self) -> dict[str, torch.Tensor]:
        generator = torch.Generator().manual_seed(self.seed)
        return {name: buf.allocate(generator) for name, buf in sorted(self.buffers.items())}

    def bind(self, buffers: Mapping[str, torch.Tensor]) -> dict[str, Any]:
        """The op's arguments, with every View made from ``buffers``."""
        return {
            name: apply_view_ops(buffers[value.buffer], value.ops)
            if isinstance(value, View)
            else value
            for name, value in self.args.items()
        }

    def footprint(self, name: str) -> torch.Tensor:
        """Flat indices into its buffer of every element argument ``name`` covers."""
        view = self.args[name]
        shape = self.buffers[view.buffer].shape
        index = torch.arange(_numel(shape)).view(shape)
        return apply_view_ops(index, view.ops).reshape(-1)

    def meta_buffers(self) -> dict[str, torch.Tensor]:
        """The buffers on the meta device: shapes and strides without data."""
        return {
            name: torch.empty(buf.shape, dtype=buf.dtype, device="meta")
            for name, buf in self.buffers.items()
        }

    def describe(self) -> str:
        """A one-line account of the arguments: shapes, strides, offsets."""
        parts = []
        for name, value in self.bind(self.meta_buffers()).items():
            if isinstance(value, torch.Tensor):
                parts.append(
                    f"{name}={_dtype_name(value.dtype)}{list(value.shape)}"
                    f" stride={tuple(value.stride())} offset={value.storage_offset()}"
                )
            else:
                parts.append(f"{name}={value!r}")
        text = ", ".join(parts)
        return f"{self.label}: {text}" if self.label else text


def _numel(shape: tuple[int, ...]) -> int:
    count = 1
    for size in shape:
        count *= size
    return count


def _dtype_name(dtype: torch.dtype) -> str:
    return str(dtype).removeprefix("torch.")
