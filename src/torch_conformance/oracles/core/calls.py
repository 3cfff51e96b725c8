"""How a program calls the op: the default program, and what it reads of a schema.

These run inside compiled programs, so what they read of an op's schema is a
constant to Dynamo.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch


def call_op(op: Callable, /, **args: Any) -> Any:
    """The op alone, its outputs returned as they are.

    A torch op gets its arguments positionally, in schema order, as model code
    passes them: Dynamo reads a keyword named ``out`` as an ``out=`` call.
    """
    positional = []
    for name in positional_names(op):
        if name not in args:
            break
        positional.append(args.pop(name))
    return op(*positional, **args)


def read_outputs(op: Callable, /, **args: Any) -> Any:
    """The default program: the op, its outputs returned as they are, then
    each tensor output read as the next layer of model code reads it
    (``read``). A compiled graph computes those reads from the metadata the
    op's fake claims, so a wrong fake gives wrong values or metadata even
    where no size assert checks it."""
    return _with_reads(call_op(op, **args))


def read_back(op: Callable, /, **args: Any) -> Any:
    """Model code around an op: the op, then what it produced, read as the
    next layer reads it: its outputs (as ``read_outputs``), or if it returns
    nothing the arguments it writes. The compiled graph must then produce
    every write."""
    out = call_op(op, **args)
    if out is not None:
        return _with_reads(out)
    return tuple(args[name] for name in written_names(op) if args.get(name) is not None)


def read(tensor: torch.Tensor) -> tuple[torch.Tensor, ...]:
    """One output read back: copied in its element order into a fresh
    tensor of its dtype (through its strides and shape), and viewed from its
    second row on (through its storage offset)."""
    if tensor.dim() == 0:
        return (tensor.reshape(-1).clone(),)
    return (tensor.reshape(-1).clone(), tensor[1:])


def _with_reads(out: Any) -> Any:
    outputs = out if isinstance(out, (tuple, list)) else (out,)
    reads = tuple(r for t in outputs if isinstance(t, torch.Tensor) for r in read(t))
    return (*outputs, *reads) if reads else out


@torch._dynamo.assume_constant_result
def written_names(op: Callable) -> tuple[str, ...]:
    """The arguments a torch op's schema declares written (``Tensor(a!)``); a
    constant to Dynamo."""
    schema = getattr(op, "_schema", None)
    if schema is None:
        return ()
    return tuple(
        a.name for a in schema.arguments if a.alias_info is not None and a.alias_info.is_write
    )


@torch._dynamo.assume_constant_result
def positional_names(op: Callable) -> tuple[str, ...]:
    """The names of a torch op's positional arguments in schema order (none for a
    Python function); a constant to Dynamo, which cannot read a schema."""
    schema = getattr(op, "_schema", None)
    if schema is None:
        return ()
    return tuple(a.name for a in schema.arguments if not a.kwarg_only)
