"""A namespace whose ops do what real libraries' ops do and the suite must
take in its stride, registered on import through ``torch.library`` as a
kernel library's Python package registers them:

- ``named``, ``named_more``: arguments named like the suite's own parameters;
- ``nonzero_rows``: a fake that sizes its output from data
  (``new_dynamic_size``), with a planted bug: its second output's dtype;
- ``maybe_stats``: a ``Tensor?`` output, None on some calls;
- ``split_rows``: a ``Tensor[]`` output;
- ``scale`` and ``scale.out``: an ``.out`` overload with a fake of its own;
- ``block_dequant``: one scale per block of ``blocksize`` elements
  (``scales.numel() == ceil(x.numel() / blocksize)``), an optional bias
  present only in 2-D calls; the kernel checks none of it and reads past the
  end of a too-short ``scales`` (memory it does not own, which changes
  between calls);
- ``qmatmul``: a weight passed as a subclass of ``nn.Parameter``;
- ``soft_clip``: CompositeImplicitAutograd (it decomposes), called in bfloat16 too;
- ``jagged_sum``, ``segment_sum``: offsets whose last entry is the values'
  length, lengths that sum to it;
- ``stack_sum``: a ``Tensor[]`` argument;
- ``fragile``: a kernel that kills its process on sizes the program never
  passes;
- ``outer``: an op whose autograd kernel calls ``inner``, so the dispatcher's
  Python key sees only ``inner``;
- ``pack4``: a fake that pads rows to a multiple of 4 where the kernel pads
  none, seen only on the 1-D calls (the other planted bug).
"""

from __future__ import annotations

import math
import os

import torch

NS = "conformance_wild"
library = torch.library.Library(NS, "DEF")
# The planted bugs fixed: what each repro script must then pass.
FIXED = os.environ.get("CONFORMANCE_WILD_FIXED") == "1"


def _define(schema: str, kernel, fake=None, key: str = "CPU") -> None:
    name = schema.partition("(")[0]
    library.define(schema)
    library.impl(name, kernel, key)
    if fake is not None:
        torch.library.register_fake(f"{NS}::{name}", fake, lib=library)


# Arguments named as the suite names its own parameters.
# (Not `self` and `input` in one op: Inductor's lowering names `self`
# `input` (torch.fx's signature of a schema) and refuses the pair.)
_define(
    "named(Tensor op, Tensor self, Tensor v0, int case, float mode, str name, int device, "
    "Tensor? spec=None) -> Tensor",
    lambda op, self, v0, case, mode, name, device, spec=None: (
        op + self * v0 * case * mode + (0 if spec is None else spec)
    ),
    lambda op, self, v0, case, mode, name, device, spec=None: torch.empty_like(op),
)
_define(
    "named_more(Tensor args, Tensor kwargs, Tensor out, Tensor input, int program, int check, "
    "int torch) -> Tensor",
    lambda args, kwargs, out, input, program, check, torch: (
        args * kwargs + out * (program - check) - input
    ),
    lambda args, kwargs, out, input, program, check, torch: args.new_empty(args.shape),
)


def _nonzero_rows(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    rows = (x.sum(-1) > 0).nonzero().reshape(-1)
    return rows, torch.tensor(rows.numel(), dtype=torch.int64)


def _nonzero_rows_fake(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    count = torch.library.get_ctx().new_dynamic_size()
    # The planted bug: the kernel's count is int64.
    return x.new_empty(count, dtype=torch.int64), x.new_empty((), dtype=_COUNT)


_COUNT = torch.int64 if FIXED else torch.int32


_define("nonzero_rows(Tensor x) -> (Tensor, Tensor)", _nonzero_rows, _nonzero_rows_fake)

_define(
    "maybe_stats(Tensor x, bool stats) -> (Tensor, Tensor?)",
    lambda x, stats: (x * 2, x.sum(-1) if stats else None),
    lambda x, stats: (torch.empty_like(x), x.new_empty(x.shape[:-1]) if stats else None),
)


_define(
    "split_rows(Tensor x, int parts) -> Tensor[]",
    lambda x, parts: [t.clone() for t in x.chunk(parts)],
    lambda x, parts: [t.new_empty(t.shape) for t in x.chunk(parts)],
)


def _scale_out(x: torch.Tensor, s: float, out: torch.Tensor) -> None:
    out.copy_(x * s)


_define("scale(Tensor x, float s) -> Tensor", lambda x, s: x * s, lambda x, s: torch.empty_like(x))
_define("scale.out(Tensor x, float s, Tensor(a!) out) -> ()", _scale_out, lambda x, s, out: None)

# What lies past the end of a too-short argument: memory the kernel does not
# own, which the next call finds changed.
_PAST_THE_END = torch.zeros(1 << 16)


def _block_dequant(x, scales, blocksize, bias=None):
    flat = x.reshape(-1).to(torch.float32)
    blocks = math.ceil(flat.numel() / blocksize)
    # Checks nothing, as C kernels often do: reads past a too-short scales.
    _PAST_THE_END.add_(1)
    read = torch.cat([scales.reshape(-1), _PAST_THE_END])[:blocks]
    out = (flat * read.repeat_interleave(blocksize)[: flat.numel()]).reshape(x.shape)
    return out if bias is None else out + bias


def _block_dequant_fake(x, scales, blocksize, bias=None):
    return x.new_empty(x.shape, dtype=torch.float32)


_define(
    "block_dequant(Tensor x, Tensor scales, int blocksize, Tensor? bias=None) -> Tensor",
    _block_dequant,
    _block_dequant_fake,
)

_define(
    "qmatmul(Tensor x, Tensor weight, Tensor weight_scale) -> Tensor",
    lambda x, weight, weight_scale: x @ (weight.to(x.dtype) * weight_scale).t(),
    lambda x, weight, weight_scale: x.new_empty(x.shape[0], weight.shape[0]),
)


class QuantizedWeight(torch.nn.Parameter):
    """A quantized weight class, as quantization libraries subclass
    ``nn.Parameter``: a plain tensor underneath."""

    def __new__(cls, data: torch.Tensor):
        return super().__new__(cls, data, requires_grad=False)


library.define("soft_clip(Tensor x, float limit) -> Tensor")
library.impl(
    "soft_clip",
    lambda x, limit: torch.ops.conformance_wild.scale(x / (1 + (x / limit).abs()), 2.0),
    "CompositeImplicitAutograd",
)


def _jagged_sum(values: torch.Tensor, offsets: torch.Tensor) -> torch.Tensor:
    ends = offsets.tolist()
    if ends[0] != 0 or ends[-1] != values.shape[0] or ends != sorted(ends):
        raise RuntimeError(
            f"offsets_data[{len(ends) - 1}] ({ends[-1]}) != values.size(0) ({values.shape[0]}), "
            "or offsets do not start at 0 and rise"
        )
    return torch.stack([values[a:b].sum(0) for a, b in zip(ends, ends[1:], strict=False)])


def _segment_sum(values: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
    if int(lengths.sum()) != values.shape[0] or bool((lengths < 0).any()):
        raise RuntimeError(f"lengths sum to {int(lengths.sum())}, not values.size(0)")
    return torch.stack([part.sum(0) for part in values.split(lengths.tolist())])


_define(
    "jagged_sum(Tensor values, Tensor offsets) -> Tensor",
    _jagged_sum,
    lambda values, offsets: values.new_empty(offsets.shape[0] - 1, *values.shape[1:]),
)
_define(
    "segment_sum(Tensor values, Tensor lengths) -> Tensor",
    _segment_sum,
    lambda values, lengths: values.new_empty(lengths.shape[0], *values.shape[1:]),
)


def _stack_sum(tensors: list[torch.Tensor]) -> torch.Tensor:
    if len({tuple(t.shape) for t in tensors}) != 1:
        raise RuntimeError("stack_sum takes tensors of one shape")
    return torch.stack(tensors).sum(0)


_define(
    "stack_sum(Tensor[] tensors) -> Tensor",
    _stack_sum,
    lambda tensors: torch.empty_like(tensors[0], memory_format=torch.contiguous_format),
)


def _fragile(x: torch.Tensor) -> torch.Tensor:
    if x.shape[0] > 12:  # no recorded call has more than 12 rows
        os.abort()
    return x.flip(0)


_define("fragile(Tensor x) -> Tensor", _fragile, lambda x: torch.empty_like(x))

_define("inner(Tensor x) -> Tensor", lambda x: x.cumsum(0), lambda x: torch.empty_like(x))
library.define("outer(Tensor x) -> Tensor")
# An autograd kernel that calls another op: the dispatcher's Python key,
# below the autograd keys, sees the inner op alone.
library.impl("outer", lambda x: torch.ops.conformance_wild.inner(x) * 3, "Autograd")
library.impl("outer", lambda x: x.cumsum(0) * 3, "CPU")
torch.library.register_fake(f"{NS}::outer", lambda x: torch.empty_like(x), lib=library)


def _pack4_fake(x: torch.Tensor) -> torch.Tensor:
    rows = x.shape[0] if FIXED else -(-x.shape[0] // 4) * 4  # the planted bug: the kernel pads none
    return x.new_empty(rows, *x.shape[1:])


_define("pack4(Tensor x) -> Tensor", lambda x: x * 4, _pack4_fake)
