"""Static signatures: what a compiled program specializes on, sizes apart.

A Case's Signature keeps what must be static under compile — buffer dtypes
and ranks, the structure of every view (which operations, on which
dimensions), plain argument values — and leaves out every size, offset and
length, which the compiled program receives as int inputs. Cases that share
a Signature share one compiled program, whatever sizes Hypothesis drew.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

import torch

from oracles.case import Case, View, apply_view_ops

# For each view operation, which of its parameters are sizes (True) and
# which are structure (False).
_SIZE_PARAMS = {
    "split": (True, False, False),
    "view": (True,),
    "permute": (False,),
    "narrow": (False, True, True),
    "expand": (True,),
}


@dataclasses.dataclass(frozen=True)
class Sizes:
    """A placeholder for ``count`` size inputs (``None``: a single int)."""

    count: int | None


@dataclasses.dataclass(frozen=True)
class Signature:
    buffers: tuple[tuple[str, torch.dtype, int], ...]  # name, dtype, rank
    args: tuple[tuple[str, Any], ...]  # name, View template or plain value

    @property
    def buffer_names(self) -> list[str]:
        return [name for name, _, _ in self.buffers]


def _template(ops: tuple, sizes: list[int]) -> tuple:
    template = []
    for name, *params in ops:
        kinds = _SIZE_PARAMS[name]
        entry = [name]
        for is_size, value in zip(kinds, params, strict=False):
            if not is_size:
                entry.append(value)
            elif isinstance(value, (tuple, list)):
                sizes.extend(value)
                entry.append(Sizes(len(value)))
            else:
                sizes.append(value)
                entry.append(Sizes(None))
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
            View(value.buffer, _template(value.ops, sizes)) if isinstance(value, View) else value,
        )
        for name, value in case.args.items()
    )
    return Signature(buffers, args), tuple(sizes)


def bind(signature: Signature, buffers: Mapping[str, Any], sizes: Sequence[Any]) -> dict[str, Any]:
    """The op's arguments made from ``buffers``, with ``sizes`` put back in place."""
    remaining = iter(sizes)

    def fill(param: Any) -> Any:
        if not isinstance(param, Sizes):
            return param
        if param.count is None:
            return next(remaining)
        return tuple(next(remaining) for _ in range(param.count))

    args = {}
    for name, value in signature.args:
        if isinstance(value, View):
            ops = tuple((op, *(fill(p) for p in params)) for op, *params in value.ops)
            args[name] = apply_view_ops(buffers[value.buffer], ops)
        else:
            args[name] = value
    return args
