"""Output comparisons: structure, metadata and aliasing, between runs and
against the schema."""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from typing import Any

import torch
from torch.multiprocessing.reductions import StorageWeakRef

from torch_conformance.oracles.core.findings import Finding
from torch_conformance.oracles.core.verdicts import (
    ALIASING,
    INTERMEDIATE_STRIDES,
    METADATA,
    OUTPUT_ALIASING,
    OUTPUTS,
    SCHEMA,
    SIZE_1_STRIDES,
)

# What to do about an output that aliases an input its schema does not name:
# not a clone alone (the fake mirroring the kernel would then be wrong), not
# an annotated return (torch.compile cannot functionalize it).
ALIAS_ADVICE = (
    "if the kernel writes it, declare it written (Tensor(a!)) and return nothing (-> ()), "
    "so callers read the argument: a returned Tensor(a!) argument is what torch.compile "
    "cannot functionalize; if it does not, return a fresh tensor, from the kernel and the "
    "fake alike"
)


def output_label(i: int) -> str:
    """How a message names output ``i``."""
    return f"out[{i}]"


def structure(
    real: tuple | None, other: tuple | None, other_mode: str, real_mode: str = "the real kernel"
) -> list[Finding]:
    """The same number of outputs, and None where the real kernel gives None."""

    def shape_of(outputs):
        if outputs is None:
            return "None"
        kinds = ["Tensor" if isinstance(o, torch.Tensor) else type(o).__name__ for o in outputs]
        return f"{len(outputs)} output(s) ({', '.join(kinds)})"

    if shape_of(real) == shape_of(other):
        return []
    return [
        Finding(
            OUTPUTS,
            f"{real_mode} returns {shape_of(real)} but {other_mode} returns {shape_of(other)}",
        )
    ]


def _reach(tensor: torch.Tensor) -> tuple[int, int]:
    """The elements of its storage a tensor's view reaches, and those the storage holds."""
    reach = int(tensor.storage_offset()) + 1
    reach += sum((n - 1) * stride for n, stride in zip(tensor.shape, tensor.stride(), strict=True))
    return reach, tensor.untyped_storage().nbytes() // tensor.element_size()


def reaches_past(tensor: torch.Tensor) -> bool:
    """Its view reaches past the end of its storage: nothing of it may be read."""
    if tensor.numel() == 0:
        return False
    reach, holds = _reach(tensor)
    return reach > holds


def past_storage(
    label: str, tensor: torch.Tensor, mode: str, expected: torch.Tensor
) -> Finding | None:
    """A tensor whose view reaches past the end of its storage: a compiled
    program that returns one hands out memory it does not own, and reading
    it reads past the end (so nothing else of it is compared). Only where
    ``expected`` does not do the same, with the same layout over as many
    elements: eager never does, but a known fault's predicted answer may."""
    if not reaches_past(tensor):
        return None
    layout = (tensor.shape, tensor.stride(), tensor.storage_offset(), _reach(tensor))
    if reaches_past(expected) and layout == (
        expected.shape,
        expected.stride(),
        expected.storage_offset(),
        _reach(expected),
    ):
        return None
    reach, holds = _reach(tensor)
    return Finding(
        METADATA,
        f"{label} in {mode} reaches element {reach - 1} of its storage, which holds {holds}: "
        f"its view (shape {list(tensor.shape)}, stride {tensor.stride()}, offset "
        f"{tensor.storage_offset()}) reads past the end of its memory",
    )


def metadata(
    label: str,
    real: torch.Tensor,
    other: torch.Tensor,
    other_mode: str,
    real_mode: str = "the real kernel",
    layout_significant: bool = True,
) -> list[Finding]:
    """Shape, dtype, device, strides (size-1 dims apart) and storage offset
    (of a tensor with elements: no access can tell an empty one's layout).
    Where the layout is not ``layout_significant`` (a view of a tensor the
    program made: torch.compile does not promise its strides), a different
    layout is reported without blocking."""
    found = []
    for what, want, got, same in (
        ("shape", tuple(real.shape), tuple(other.shape), _same_sizes(real.shape, other.shape)),
        ("dtype", real.dtype, other.dtype, real.dtype == other.dtype),
        ("device", real.device.type, other.device.type, real.device.type == other.device.type),
    ):
        if not same:
            found.append(
                Finding(
                    METADATA,
                    f"{label}.{what}={got} in {other_mode}, but {real_mode} gives {want}",
                )
            )
    if found or real.numel() == 0:
        return found
    layout = METADATA if layout_significant else INTERMEDIATE_STRIDES
    big = [d for d in range(real.dim()) if real.shape[d] > 1]
    if any(not _same_size(real.stride(d), other.stride(d)) for d in big):
        found.append(
            Finding(
                layout,
                f"{label}.stride()={tuple(other.stride())} in {other_mode}, but "
                f"{real_mode} gives {tuple(real.stride())}",
                layout_significant,
            )
        )
    elif not _same_sizes(real.stride(), other.stride()):
        # Inductor's assert_size_stride skips size-1 dimensions too.
        found.append(
            Finding(
                SIZE_1_STRIDES,
                f"{label}.stride()={tuple(other.stride())} in {other_mode}, but "
                f"{real_mode} gives {tuple(real.stride())}; only dimensions of "
                "size 1 differ, which no element access can tell apart",
                blocking=False,
            )
        )
    if not _same_size(int(real.storage_offset()), other.storage_offset()):
        found.append(
            Finding(
                layout,
                f"{label}.storage_offset()={other.storage_offset()} in "
                f"{other_mode}, but {real_mode} gives {real.storage_offset()}",
                layout_significant,
            )
        )
    return found


def _known(size: Any) -> int | None:
    """A size as an int; None where it is left to the data (a fake's
    unbacked size, ``new_dynamic_size``), which no fake can be held to."""
    if isinstance(size, torch.SymInt):
        return size.node.hint if size.node.has_hint() else None
    return int(size)


def _same_size(real: int, other: Any) -> bool:
    known = _known(other)
    return known is None or known == real


def _same_sizes(real: Sequence[int], other: Sequence[Any]) -> bool:
    return len(real) == len(other) and all(map(_same_size, real, other))


def data_dependent(label: str, other: torch.Tensor) -> list[str]:
    """Where ``other``'s sizes, strides or offset are left to the data."""
    where = [f"{label}.shape[{d}]={s}" for d, s in enumerate(other.shape) if _known(s) is None]
    where += [f"{label}.stride({d})={s}" for d, s in enumerate(other.stride()) if _known(s) is None]
    if _known(other.storage_offset()) is None:
        where.append(f"{label}.storage_offset()={other.storage_offset()}")
    return where


def _sharing(outputs: Sequence[Any]) -> set[tuple[int, int]]:
    tensors = [(i, o) for i, o in enumerate(outputs) if isinstance(o, torch.Tensor)]
    return {
        (i, j)
        for (i, a), (j, b) in itertools.combinations(tensors, 2)
        if StorageWeakRef(a.untyped_storage()) == StorageWeakRef(b.untyped_storage())
    }


def output_aliasing(
    real: Sequence[Any], other: Sequence[Any], other_mode: str, real_mode: str = "eager"
) -> list[Finding]:
    """Which outputs share storage with each other, the same in both runs.
    Reported without blocking: torch.compile does not promise it (a program
    that writes to one output and reads another can tell, and is judged by
    its values)."""
    want, got = _sharing(real), _sharing(other)
    return [
        Finding(
            OUTPUT_ALIASING,
            f"out[{i}] and out[{j}] share storage in {mode_with}, but not in {mode_without}",
            blocking=False,
        )
        for pairs, mode_with, mode_without in (
            (want - got, real_mode, other_mode),
            (got - want, other_mode, real_mode),
        )
        for i, j in sorted(pairs)
    ]


def aliases(output: torch.Tensor, args: Mapping[str, Any]) -> dict[str, str]:
    """Which tensor arguments ``output`` is, or shares storage with."""
    found = {}
    storage = StorageWeakRef(output.untyped_storage())
    for name, arg in args.items():
        if not isinstance(arg, torch.Tensor):
            continue
        if StorageWeakRef(arg.untyped_storage()) != storage:
            continue
        same_view = (
            arg.shape == output.shape
            and arg.stride() == output.stride()
            and arg.storage_offset() == output.storage_offset()
        )
        found[name] = "is" if same_view else "shares storage with"
    return found


def _alias_text(found: dict[str, str]) -> str:
    if not found:
        return "is a fresh tensor"
    same = [name for name, how in found.items() if how == "is"]
    if same:
        return " and ".join(f"is the input {name!r}" for name in same)
    return "shares storage with " + " and ".join(repr(name) for name in found)


def aliasing(
    label: str,
    real: torch.Tensor,
    real_args: Mapping[str, Any],
    other: torch.Tensor,
    other_args: Mapping[str, Any],
    other_mode: str,
    real_mode: str = "the real kernel",
) -> list[Finding]:
    """The output aliases the same inputs, the same way, in both runs."""
    want, got = aliases(real, real_args), aliases(other, other_args)
    if want == got:
        return []
    return [
        Finding(
            ALIASING,
            f"{label} {_alias_text(want)} in {real_mode}, but {_alias_text(got)} in {other_mode}",
        )
    ]


def schema_aliasing(
    op: torch._ops.OpOverload,
    outputs: tuple | None,
    args: Mapping[str, Any],
    mode: str = "the real kernel",
) -> list[Finding]:
    """Every output aliases exactly what the schema's annotations declare."""
    schema = op._schema
    declared_inputs = {
        frozenset(a.alias_info.before_set): a.name
        for a in schema.arguments
        if a.alias_info is not None
    }
    found = []
    for i, (ret, out) in enumerate(zip(schema.returns, outputs or (), strict=False)):
        if not isinstance(out, torch.Tensor):
            continue
        real = aliases(out, args)
        if ret.alias_info is None:
            if real:
                found.append(
                    Finding(
                        SCHEMA,
                        f"{output_label(i)} of {mode} {_alias_text(real)} but "
                        f"the schema `{schema}` declares no alias for it: {ALIAS_ADVICE}",
                    )
                )
            continue
        name = declared_inputs.get(frozenset(ret.alias_info.before_set))
        if name is not None and name not in real:
            found.append(
                Finding(
                    SCHEMA,
                    f"the schema `{schema}` declares {output_label(i)} aliases the "
                    f"input {name!r}, but {output_label(i)} of {mode} {_alias_text(real)}",
                )
            )
    return found
