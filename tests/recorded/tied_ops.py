"""A namespace whose ops tie their arguments to each other, as real kernel
libraries do, registered on import: a per-group scale ``[T, D // group]``
for ``x [T, D]``, a gather whose indices must lie inside the table, a paged
write into a cache's slots, and a per-group dequantize whose fake gets the
output's shape wrong (the one planted bug)."""

from __future__ import annotations

import torch


def _groups(x: torch.Tensor, scale: torch.Tensor, group_size: int) -> None:
    if x.dim() != 2 or scale.shape != (x.shape[0], x.shape[1] // group_size):
        raise ValueError(f"scale {list(scale.shape)} is not per group of {group_size} of x")
    if x.shape[1] % group_size:
        raise ValueError(f"x's {x.shape[1]} columns are not whole groups of {group_size}")


@torch.library.custom_op("conformance_tied::group_quantize", mutates_args=())
def group_quantize(x: torch.Tensor, scale: torch.Tensor, group_size: int) -> torch.Tensor:
    _groups(x, scale, group_size)
    return (x / scale.repeat_interleave(group_size, -1)).round().clamp(-127, 127).to(torch.int8)


@group_quantize.register_fake
def _(x, scale, group_size):
    _groups(x, scale, group_size)
    return x.new_empty(x.shape, dtype=torch.int8)


@torch.library.custom_op("conformance_tied::group_dequantize", mutates_args=())
def group_dequantize(q: torch.Tensor, scale: torch.Tensor, group_size: int) -> torch.Tensor:
    _groups(q, scale, group_size)
    return q.to(scale.dtype) * scale.repeat_interleave(group_size, -1)


@group_dequantize.register_fake
def _(q, scale, group_size):
    _groups(q, scale, group_size)
    return scale.new_empty(scale.shape)  # the planted bug: the kernel returns q's shape


@torch.library.custom_op("conformance_tied::gather_rows", mutates_args=())
def gather_rows(table: torch.Tensor, indices: torch.Tensor) -> torch.Tensor:
    if indices.numel() and int(indices.max()) >= table.shape[0]:
        raise IndexError(f"an index lies past the table's {table.shape[0]} rows")
    return table.index_select(0, indices)


@gather_rows.register_fake
def _(table, indices):
    return table.new_empty(indices.shape[0], table.shape[1])


@torch.library.custom_op("conformance_tied::paged_write", mutates_args=("cache",))
def paged_write(cache: torch.Tensor, slots: torch.Tensor, values: torch.Tensor) -> None:
    if values.shape != (slots.shape[0], cache.shape[1]):
        raise ValueError(f"values {list(values.shape)} are not one row a slot of the cache")
    if slots.numel() and int(slots.max()) >= cache.shape[0]:
        raise IndexError(f"a slot lies past the cache's {cache.shape[0]} rows")
    cache.index_copy_(0, slots, values)


@paged_write.register_fake
def _(cache, slots, values):
    return None


@torch.library.custom_op("conformance_tied::pair_sum", mutates_args=())
def pair_sum(x: torch.Tensor) -> torch.Tensor:
    """Adds rows in pairs: an even row count is a tie no Relation states."""
    if x.shape[0] % 2:
        raise ValueError(f"pair_sum takes an even number of rows, not {x.shape[0]}")
    return x[0::2] + x[1::2]


@pair_sum.register_fake
def _(x):
    return x.new_empty(x.shape[0] // 2, *x.shape[1:])
