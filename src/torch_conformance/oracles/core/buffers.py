"""A Case: the buffers an example allocates and the views its op receives.

A Case holds no tensors. It describes each buffer (shape, dtype, how to fill
it) and each tensor argument as a chain of view operations on a buffer, so the
same views can be made eagerly, on fake buffers, and inside a compiled graph
(``qkv.split(...)`` as model code does). Materializing twice gives equal,
independent tensors.

A Case lives on a device (``--device``, the CPU by default): its buffers
are filled on the CPU, by one seeded generator, and moved there, so a Case
holds the same values on every device.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

import torch

from torch_conformance.oracles.core.devices import DEFAULT_DEVICE
from torch_conformance.oracles.core.program import Program
from torch_conformance.oracles.core.views import CaseError, ViewOp, apply_view_ops, check_view_ops


@dataclasses.dataclass(frozen=True)
class Buffer:
    """A fresh allocation. ``fill`` is ``"normal"``, ``("randint", low, high)``
    or ``("values", (v0, v1, ...))``: the buffer's elements, in order (the
    offsets a recorded call passed)."""

    shape: tuple[int, ...]
    dtype: torch.dtype
    fill: str | tuple = "normal"

    def allocate(self, generator: torch.Generator) -> torch.Tensor:
        if self.fill == "normal":
            wide = torch.float64 if self.dtype == torch.float64 else torch.float32
            return torch.randn(self.shape, generator=generator, dtype=wide).to(self.dtype)
        assert isinstance(self.fill, tuple) and self.fill[0] in ("randint", "values"), (
            f"unknown fill {self.fill!r}"
        )
        if self.fill[0] == "values":
            return torch.tensor(self.fill[1], dtype=self.dtype).reshape(self.shape)
        _, low, high = self.fill
        return torch.randint(low, high, self.shape, generator=generator, dtype=self.dtype)


@dataclasses.dataclass(frozen=True)
class View:
    """An argument made from ``buffer`` by applying ``ops`` in order."""

    buffer: str
    ops: tuple[ViewOp, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "ops", tuple(self.ops))
        check_view_ops(self.ops, f"View of buffer {self.buffer!r}")


class _Default:
    """The value of an argument a Case leaves out: the op uses its schema default."""

    def __repr__(self) -> str:
        return "DEFAULT"

    def __reduce__(self) -> str:
        return "DEFAULT"


DEFAULT = _Default()

# Plain (non-tensor) argument values every Mode can pass and every compiled
# program can take as a constant.
_PLAIN = (
    type(None),
    bool,
    int,
    float,
    str,
    torch.dtype,
    torch.device,
    torch.layout,
    torch.memory_format,
)


def check_value(value: Any, where: str) -> None:
    """Raise CaseError naming ``where`` unless ``value`` is a supported argument value."""
    if isinstance(value, (list, tuple)):
        for item in value:
            check_value(item, where)
    elif not isinstance(value, (_PLAIN, View, _Default)):
        raise CaseError(
            f"{where}: a {type(value).__name__} is not a supported argument value; "
            "tensors are Views of a Case buffer, plain values are None, bool, int, "
            "float, str, torch.dtype, torch.device or lists and tuples of them"
        )


def map_views(value: Any, function: Any) -> Any:
    """``value`` with every View in it (itself, or in a list or tuple of
    them: a ``Tensor[]`` argument) replaced by ``function(view)``."""
    if isinstance(value, View):
        return function(value)
    if isinstance(value, (list, tuple)):
        return type(value)(map_views(v, function) for v in value)
    return value


def views_in(value: Any) -> list[View]:
    """The Views in an argument value (itself, or the elements of a list)."""
    found: list[View] = []
    map_views(value, found.append)
    return found


def bind_views(args: Mapping[str, Any], buffers: Mapping[str, Any]) -> dict[str, Any]:
    """The one route from a Case's arguments to the op's, for every Mode, the
    float64 expectation and the benchmark: each View made from ``buffers``
    (real, meta or symbolic), in a list too, ``DEFAULT`` left out."""
    return {
        name: map_views(value, lambda view: apply_view_ops(buffers[view.buffer], view.ops))
        for name, value in args.items()
        # not `is not DEFAULT`: Dynamo of torch 2.11 cannot compare a symbolic
        # int with an object by identity
        if not isinstance(value, _Default)
    }


@dataclasses.dataclass(frozen=True)
class Case:
    """One example: buffers, the op's arguments (Views or plain values), a seed."""

    buffers: Mapping[str, Buffer]
    args: Mapping[str, Any]
    seed: int = 0
    label: str = ""
    # The code around the op, where a check draws it; None: the spec's own program.
    program: Program | None = None
    # The layouts of the upstream gradients a backward receives, cycled over
    # the differentiable outputs (``oracles.core.gradients``); empty: contiguous.
    tangents: tuple[str, ...] = ()
    # Left out of the repr, which digests a Case in reports compared across
    # runs: a CPU Case keeps the key it always had, and ``describe`` names
    # any other device.
    device: str = dataclasses.field(default=DEFAULT_DEVICE, repr=False)

    def __post_init__(self) -> None:
        for name, value in self.args.items():
            where = f"Case argument {name!r}"
            check_value(value, where)
            for view in views_in(value):
                if view.buffer not in self.buffers:
                    raise CaseError(
                        f"{where}: a View of buffer {view.buffer!r}, which the Case does not "
                        f"allocate (its buffers: {', '.join(sorted(self.buffers))})"
                    )

    def on(self, device: str) -> Case:
        """The same Case on ``device``."""
        return self if device == self.device else dataclasses.replace(self, device=device)

    def allocate(self) -> dict[str, torch.Tensor]:
        """The buffers on the Case's device, filled on the CPU (the same
        values everywhere)."""
        generator = torch.Generator().manual_seed(self.seed)
        return {
            name: buf.allocate(generator).to(self.device)
            for name, buf in sorted(self.buffers.items())
        }

    def bind(self, buffers: Mapping[str, torch.Tensor]) -> dict[str, Any]:
        """The op's arguments, with every View made from ``buffers``."""
        return bind_views(self.args, buffers)

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
        if self.tangents:
            text += f"; upstream gradients {', '.join(self.tangents)}"
        if self.device != DEFAULT_DEVICE:
            text += f"; on {self.device}"
        return f"{self.label}: {text}" if self.label else text


def _numel(shape: tuple[int, ...]) -> int:
    count = 1
    for size in shape:
        count *= size
    return count


def _dtype_name(dtype: torch.dtype) -> str:
    return str(dtype).removeprefix("torch.")
