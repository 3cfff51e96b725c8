"""Static signatures: what a compiled program specializes on, sizes apart.

A Case's Signature keeps what must be static under compile — its device, buffer dtypes
and ranks, the structure of every view (which operations, on which
dimensions), plain argument values — and leaves out every size, offset and
length, which the compiled program receives as int inputs. Cases that share
a Signature share one compiled program, whatever sizes Hypothesis drew.

A batch of Cases sharing a Signature compiles once for all of them: what is
equal across the batch is frozen into the program (sizes as constants,
buffer dimensions marked static), and only what varies stays symbolic, as a
serving stack marks its token count dynamic and nothing else.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

import torch

from torch_conformance.oracles.core.buffers import Case, View, bind_views, map_views, views_in
from torch_conformance.oracles.core.devices import DEFAULT_DEVICE
from torch_conformance.oracles.core.views import VIEW_OPS


@dataclasses.dataclass(frozen=True)
class Size:
    """A placeholder for the program's size input number ``index``."""

    index: int


def _canonical(value: Any) -> Any:
    """A hashable key equal for equal argument values: types kept apart
    (True is not 1), floats by their bits (NaN equals NaN, -0.0 is not 0.0)."""
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, tuple(_canonical(v) for v in value))
    if isinstance(value, float):
        return ("float", value.hex())
    if isinstance(value, (torch.dtype, torch.device, torch.layout, torch.memory_format)):
        return (type(value).__name__, str(value))
    return (type(value).__name__, value)


@dataclasses.dataclass(frozen=True, eq=False)
class Constant:
    """A plain argument value, compared and hashed by its canonical key."""

    value: Any

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Constant) and _canonical(self.value) == _canonical(other.value)

    def __hash__(self) -> int:
        return hash(_canonical(self.value))


@dataclasses.dataclass(frozen=True)
class Signature:
    buffers: tuple[tuple[str, torch.dtype, int], ...]  # name, dtype, rank
    args: tuple[tuple[str, Any], ...]  # name, View template or Constant
    # A program compiled for one device never serves another; left out of the
    # repr, as the Case's device is, so the CPU's texts read as they did.
    device: str = dataclasses.field(default=DEFAULT_DEVICE, repr=False)

    @property
    def buffer_names(self) -> list[str]:
        return [name for name, _, _ in self.buffers]


def _size(value: Any, sizes: list[int]) -> Any:
    """A placeholder for an int size; anything else (a slice's None end) stays as it is."""
    if isinstance(value, bool) or not isinstance(value, int):
        return value
    sizes.append(value)
    return Size(len(sizes) - 1)


def _template(ops: tuple, sizes: list[int]) -> tuple:
    template = []
    for name, *params in ops:
        entry = [name]
        for is_size, value in zip(VIEW_OPS[name].sizes, params, strict=True):
            if isinstance(value, (tuple, list)):
                entry.append(tuple(_size(v, sizes) if is_size else v for v in value))
            else:
                entry.append(_size(value, sizes) if is_size else value)
        template.append(tuple(entry))
    return tuple(template)


def signature_of(case: Case) -> tuple[Signature, tuple[int, ...]]:
    """The Case's Signature and, in order, the sizes it leaves out."""
    sizes: list[int] = []
    buffers = tuple(
        (name, buffer.dtype, len(buffer.shape)) for name, buffer in sorted(case.buffers.items())
    )
    args = tuple(
        (
            name,
            _templates(value, sizes) if views_in(value) else Constant(value),
        )
        for name, value in case.args.items()
    )
    return Signature(buffers, args, case.device), tuple(sizes)


class ViewList(tuple):
    """A list argument of Views (``Tensor[]``), as a Signature holds it:
    hashable, and a list again when bound."""


def _templates(value: Any, sizes: list[int]) -> Any:
    if isinstance(value, View):
        return View(value.buffer, _template(value.ops, sizes))
    return ViewList(_templates(v, sizes) for v in value)


def _map_sizes(signature: Signature, fill: Any) -> dict[str, Any]:
    """``signature``'s arguments with every Size replaced by ``fill(size)``."""

    def param(value: Any) -> Any:
        if isinstance(value, Size):
            return fill(value)
        if isinstance(value, tuple):
            return tuple(param(v) for v in value)
        return value

    def view(value: View) -> View:
        return View(value.buffer, tuple((op, *map(param, params)) for op, *params in value.ops))

    return {name: map_views(value, view) for name, value in signature.args}


def _plain(value: Any) -> Any:
    if isinstance(value, ViewList):
        return [_plain(v) for v in value]
    return value.value if isinstance(value, Constant) else value


def bind(signature: Signature, buffers: Mapping[str, Any], sizes: Sequence[Any]) -> dict[str, Any]:
    """The op's arguments made from ``buffers``, with ``sizes`` put back in place."""
    args = _map_sizes(signature, lambda size: sizes[size.index])
    return bind_views({name: _plain(value) for name, value in args.items()}, buffers)


@dataclasses.dataclass(frozen=True)
class BatchSignature:
    """What one compiled program of a batch specializes on.

    ``signature`` has the sizes equal across the batch frozen in as
    constants; ``dynamic`` lists, in input order, the positions (in
    ``signature_of``'s sizes) of those that vary; ``static_dims`` the
    buffer dimensions equal across the batch, as (buffer, dim, size).
    """

    signature: Signature
    dynamic: tuple[int, ...]
    static_dims: tuple[tuple[str, int, int], ...]

    def sizes(self, case: Case) -> tuple[int, ...]:
        """The program's size inputs for ``case``."""
        all_sizes = signature_of(case)[1]
        return tuple(all_sizes[i] for i in self.dynamic)

    def mark_static(self, buffers: Mapping[str, torch.Tensor]) -> None:
        for name, dim, _ in self.static_dims:
            torch._dynamo.mark_static(buffers[name], dim)


class BatchError(ValueError):
    """The Cases of a batch do not share a Signature."""


def batch_signature(cases: Sequence[Case]) -> BatchSignature:
    """The BatchSignature of Cases that share a Signature."""
    drawn = [signature_of(case) for case in cases]
    signature = drawn[0][0]
    if any(other != signature for other, _ in drawn[1:]):
        raise BatchError("the Cases of a batch must share one Signature (one structure)")
    columns = list(zip(*(sizes for _, sizes in drawn), strict=True))
    dynamic = tuple(i for i, column in enumerate(columns) if len(set(column)) > 1)
    inputs = {position: index for index, position in enumerate(dynamic)}
    first = drawn[0][1]
    frozen = _map_sizes(
        signature,
        lambda size: Size(inputs[size.index]) if size.index in inputs else first[size.index],
    )
    static_dims = tuple(
        (name, dim, shapes[0][dim])
        for name in sorted(cases[0].buffers)
        for shapes in [[case.buffers[name].shape for case in cases]]
        for dim in range(len(shapes[0]))
        if len({shape[dim] for shape in shapes}) == 1
    )
    frozen_signature = Signature(signature.buffers, tuple(frozen.items()), signature.device)
    return BatchSignature(frozen_signature, dynamic, static_dims)
