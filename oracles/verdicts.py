"""Verdicts: functions that compare Observations and return Findings.

Each verdict judges one thing (values, metadata, aliasing, writes) and says
what it saw in words a kernel engineer can act on.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from typing import Any

import torch
from torch.multiprocessing.reductions import StorageWeakRef

from oracles.case import Case
from oracles.findings import Finding
from oracles.reference import Expectation, Expected, ulp_error

# What to do about an output that aliases an input its schema does not name.
ALIAS_ADVICE = "annotate both as Tensor(a!) or return a clone"

_BITS = {1: torch.uint8, 2: torch.int16, 4: torch.int32, 8: torch.int64}


def _bits(tensor: torch.Tensor) -> torch.Tensor:
    """The raw bits, so NaN equals NaN and -0.0 differs from 0.0."""
    if tensor.dtype == torch.bool:
        return tensor
    return tensor.contiguous().view(_BITS[tensor.element_size()])


def _index(flat: int, shape: Sequence[int]) -> list[int]:
    index = []
    for size in reversed(shape):
        index.append(flat % size if size else 0)
        flat //= size if size else 1
    return index[::-1]


def bit_exact(
    label: str, got: torch.Tensor, want: torch.Tensor, got_mode: str, want_mode: str
) -> list[Finding]:
    """``got`` must equal ``want`` bit for bit (same shape and dtype first)."""
    if got.shape != want.shape or got.dtype != want.dtype:
        return [
            Finding(
                "values",
                f"{label} is {got.dtype}{list(got.shape)} in {got_mode} but "
                f"{want.dtype}{list(want.shape)} in {want_mode}",
            )
        ]
    differ = (_bits(got) != _bits(want)).reshape(-1)
    count = int(differ.sum())
    if not count:
        return []
    first = int(differ.nonzero()[0])
    where = _index(first, got.shape)
    return [
        Finding(
            "values",
            f"{label}: {count} of {got.numel()} elements differ bit for bit "
            f"between {got_mode} and {want_mode} (first at {where}: "
            f"{got.reshape(-1)[first].item()!r} vs {want.reshape(-1)[first].item()!r})",
        )
    ]


def within_ulps(
    label: str, got: torch.Tensor, expected: Expected, budget: int, mode: str
) -> list[Finding]:
    """``got`` must lie within ``budget`` ULPs of the float64 reference."""
    if tuple(got.shape) != tuple(expected.value.shape):
        return [
            Finding(
                "values",
                f"{label} has shape {list(got.shape)} in {mode} but the reference "
                f"gives {list(expected.value.shape)}",
            )
        ]
    if not got.is_floating_point():
        return bit_exact(label, got, expected.value.to(got.dtype), mode, "the reference")
    error = ulp_error(got, expected).reshape(-1)
    over = error > budget
    count = int(over.sum())
    if not count:
        return []
    worst = int(error.argmax())
    where = _index(worst, got.shape)
    return [
        Finding(
            "values",
            f"{label}: {count} of {got.numel()} elements are more than {budget} "
            f"ULP from the float64 reference in {mode} (worst {float(error[worst]):.3g} "
            f"ULP at {where}: got {got.reshape(-1)[worst].item()!r}, reference "
            f"{expected.value.reshape(-1)[worst].item()!r}) [ULP budget {budget}]",
        )
    ]


def _output_label(i: int) -> str:
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
            "outputs",
            f"{real_mode} returns {shape_of(real)} but {other_mode} returns {shape_of(other)}",
        )
    ]


def metadata(
    label: str,
    real: torch.Tensor,
    other: torch.Tensor,
    other_mode: str,
    real_mode: str = "the real kernel",
    layout_significant: bool = True,
) -> list[Finding]:
    """Shape, dtype, device, strides (size-1 dims apart) and storage offset.
    Where the layout is not ``layout_significant`` (a view of a tensor the
    program made: torch.compile does not promise its strides), a different
    layout is reported without blocking."""
    found = []
    for what, want, got in (
        ("shape", tuple(real.shape), tuple(other.shape)),
        ("dtype", real.dtype, other.dtype),
        ("device", real.device.type, other.device.type),
    ):
        if want != got:
            found.append(
                Finding(
                    "metadata",
                    f"{label}.{what}={got} in {other_mode}, but {real_mode} gives {want}",
                )
            )
    if found:
        return found
    layout = "metadata" if layout_significant else "intermediate strides"
    big = [d for d in range(real.dim()) if real.shape[d] > 1]
    if any(real.stride(d) != other.stride(d) for d in big):
        found.append(
            Finding(
                layout,
                f"{label}.stride()={tuple(other.stride())} in {other_mode}, but "
                f"{real_mode} gives {tuple(real.stride())}",
                layout_significant,
            )
        )
    elif real.stride() != other.stride():
        # Inductor's assert_size_stride skips size-1 dimensions too.
        found.append(
            Finding(
                "size-1 strides",
                f"{label}.stride()={tuple(other.stride())} in {other_mode}, but "
                f"{real_mode} gives {tuple(real.stride())}; only dimensions of "
                "size 1 differ, which no element access can tell apart",
                blocking=False,
            )
        )
    if real.storage_offset() != other.storage_offset():
        found.append(
            Finding(
                layout,
                f"{label}.storage_offset()={other.storage_offset()} in "
                f"{other_mode}, but {real_mode} gives {real.storage_offset()}",
                layout_significant,
            )
        )
    return found


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
            "output aliasing",
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
            "aliasing",
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
                        "schema",
                        f"{_output_label(i)} of {mode} {_alias_text(real)} but "
                        f"the schema `{schema}` declares no alias for it: {ALIAS_ADVICE}",
                    )
                )
            continue
        name = declared_inputs.get(frozenset(ret.alias_info.before_set))
        if name is not None and name not in real:
            found.append(
                Finding(
                    "schema",
                    f"the schema `{schema}` declares {_output_label(i)} aliases the "
                    f"input {name!r}, but {_output_label(i)} of {mode} {_alias_text(real)}",
                )
            )
    return found


def _changed(before: torch.Tensor, after: torch.Tensor) -> torch.Tensor:
    return (_bits(before) != _bits(after)).reshape(-1)


def writes(
    case: Case,
    observation,
    declared: set[str],
    expectation: Expectation | None,
    budget: int,
) -> list[Finding]:
    """Compare every buffer before and after with what the op may write.

    ``declared`` names the arguments the op declares it writes. Reports writes
    to other arguments, writes outside every argument's view, and declared
    writes that never happen although the reference says values change.
    """
    footprints = {
        name: (view.buffer, case.footprint(name))
        for name, view in case.args.items()
        if hasattr(view, "buffer")
    }
    return buffer_writes(
        observation.buffers_before,
        observation.buffers_after,
        observation.args,
        footprints,
        declared,
        expectation,
        budget,
    )


def buffer_writes(
    buffers_before: Mapping[str, torch.Tensor],
    buffers_after: Mapping[str, torch.Tensor],
    args: Mapping[str, Any],
    footprints: Mapping[str, tuple[str, torch.Tensor]],
    declared: set[str],
    expectation: Expectation | None,
    budget: int,
) -> list[Finding]:
    """``writes`` on plain data: ``footprints`` maps each tensor argument to
    its buffer's name and the flat indices of the elements it covers there."""
    found = []
    for buffer_name, before in buffers_before.items():
        changed = _changed(before, buffers_after[buffer_name])
        on_buffer = {n: idx for n, (b, idx) in footprints.items() if b == buffer_name}
        covered = torch.zeros_like(changed)
        writable = torch.zeros_like(changed)
        for name, footprint in on_buffer.items():
            covered[footprint] = True
            if name in declared:
                writable[footprint] = True
        for name, footprint in on_buffer.items():
            if name in declared:
                continue
            hit = changed[footprint] & ~writable[footprint]
            if hit.any():
                found.append(
                    Finding(
                        "writes",
                        f"the op wrote {int(hit.sum())} element(s) of {name!r}, "
                        "which its schema declares read-only: annotate it "
                        "Tensor(a!) or stop writing it",
                    )
                )
        outside = changed & ~covered
        if outside.any():
            first = int(outside.nonzero()[0])
            found.append(
                Finding(
                    "writes",
                    f"the op wrote {int(outside.sum())} element(s) of buffer "
                    f"{buffer_name!r} outside every argument's view (first at "
                    f"{_index(first, before.shape)} of its {list(before.shape)}): "
                    "a write past the end of a slice",
                )
            )
        for name in declared & on_buffer.keys():
            expected = (expectation.writes if expectation else {}).get(name)
            if expected is None or changed[on_buffer[name]].any():
                continue
            if (ulp_error(args[name], expected) > budget).any():
                found.append(
                    Finding(
                        "writes",
                        f"the schema declares {name!r} written and the reference "
                        "changes it, but the op left every element of it as it was",
                    )
                )
    return found
