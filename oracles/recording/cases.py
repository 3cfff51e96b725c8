"""Cases from recorded calls: each call as it was, and Cases drawn around them.

A recorded call becomes a Case whose buffers are the call's storages: a
tensor alone in a dense storage of its own is a plain buffer of its shape,
anything else (the views of a fused qkv buffer, a slice at an offset) a
1-D buffer holding every tensor laid in it, each argument an ``as_strided``
view of it with the recorded shape, strides and offset. Float buffers are
filled with normal values, integer ones within their recorded range.

Around a recorded call, Cases vary what the program varied: a size that
differed between the op's calls (a token count) is drawn again, up to twice
the largest recorded, in every argument that had it, where the layout lets
it change (a dimension with the largest stride, or any dimension of a dense
tensor); and each buffer may start at another offset and end with spare
elements. Other dtypes come only from other recorded calls: an op's kernel
may take no others.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from typing import Any

from hypothesis import strategies as st

from oracles.core.case import Buffer, Case, View
from oracles.recording.calls import RecordedBuffer, RecordedCall, RecordedTensor, extent

# A buffer may start up to this many elements later, and end this many later.
MAX_SHIFT = 16


def _dense(t: RecordedTensor) -> bool:
    stride = 1
    for size, actual in reversed(list(zip(t.shape, t.stride, strict=True))):
        if size != 1 and actual != stride:
            return False
        stride *= size
    return True


def _contiguous_strides(shape: Sequence[int]) -> tuple[int, ...]:
    strides, stride = [], 1
    for size in reversed(shape):
        strides.append(stride)
        stride *= max(size, 1)
    return tuple(reversed(strides))


def tensors_of(value: Any) -> list[RecordedTensor]:
    """The recorded tensors in an argument value (a tensor, or a list of them)."""
    if isinstance(value, RecordedTensor):
        return [value]
    if isinstance(value, (list, tuple)):
        return [t for v in value for t in tensors_of(v)]
    return []


def _fill(buffer: RecordedBuffer) -> str | tuple:
    if buffer.low is None or buffer.high is None:
        return "normal"
    return ("randint", buffer.low, buffer.high + 1)


def _names(call: RecordedCall) -> dict[int, str]:
    """Each buffer named after the arguments laid in it (``query_key`` for two views of one)."""
    users: dict[int, list[str]] = {}
    for name, value in call.args:
        tensors = tensors_of(value)
        for i, t in enumerate(tensors):
            label = name if isinstance(value, RecordedTensor) else f"{name}{i}"
            users.setdefault(t.buffer, [])
            if label not in users[t.buffer]:
                users[t.buffer].append(label)
    return {index: "_".join(labels[:3]) for index, labels in users.items()}


def case_of(call: RecordedCall, seed: int = 0, label: str = "recorded call") -> Case:
    """The Case of one recorded call, laid out as it was."""
    names = _names(call)
    laid: dict[int, list[RecordedTensor]] = {}
    for _, value in call.args:
        for t in tensors_of(value):
            laid.setdefault(t.buffer, []).append(t)
    buffers: dict[str, Buffer] = {}
    plain: set[int] = set()
    for index, tensors in laid.items():
        recorded = call.buffers[index]
        first = tensors[0]
        if all(t == first for t in tensors) and first.offset == 0 and _dense(first):
            plain.add(index)
            buffers[names[index]] = Buffer(first.shape, recorded.dtype, _fill(recorded))
        else:
            buffers[names[index]] = Buffer((extent(tensors),), recorded.dtype, _fill(recorded))

    def view(t: RecordedTensor) -> View:
        if t.buffer in plain:
            return View(names[t.buffer])
        return View(names[t.buffer], (("as_strided", t.shape, t.stride, t.offset),))

    def arg(value: Any) -> Any:
        if isinstance(value, RecordedTensor):
            return view(value)
        if isinstance(value, (list, tuple)):
            return [arg(v) for v in value]
        return value

    return Case(buffers, {name: arg(value) for name, value in call.args}, seed=seed, label=label)


def varied_sizes(calls: Sequence[RecordedCall]) -> set[tuple[str, int, int]]:
    """The (argument, element, dimension) sizes that differ between calls."""
    seen: dict[tuple[str, int, int], set[int]] = {}
    for call in calls:
        for name, value in call.args:
            for i, t in enumerate(tensors_of(value)):
                for dim, size in enumerate(t.shape):
                    seen.setdefault((name, i, dim), set()).add(size)
    return {where for where, sizes in seen.items() if len(sizes) > 1}


def _resizable(t: RecordedTensor, dim: int, alone: bool) -> bool:
    """Changing this dimension's size leaves the other dimensions' strides
    meaningful: it has the largest stride, or the tensor is dense and alone
    in its buffer (its strides are then recomputed)."""
    if alone and _dense(t) and t.offset == 0:
        return True
    return t.stride[dim] == max(t.stride) and t.stride.count(t.stride[dim]) == 1


def _resized(
    call: RecordedCall, varied: set[tuple[str, int, int]], new: dict[int, int]
) -> RecordedCall:
    """``call`` with every varied size ``s`` in ``new`` made ``new[s]``, where
    every place it occurs can change; other sizes stay."""
    places: dict[int, list[tuple[RecordedTensor, int, bool]]] = {}
    counts: dict[int, int] = {}
    for _, value in call.args:
        for t in tensors_of(value):
            counts[t.buffer] = counts.get(t.buffer, 0) + 1
    for name, value in call.args:
        for i, t in enumerate(tensors_of(value)):
            for dim, size in enumerate(t.shape):
                if (name, i, dim) in varied:
                    places.setdefault(size, []).append((t, dim, counts[t.buffer] == 1))
    changing = {
        size: target
        for size, target in new.items()
        if size in places and all(_resizable(t, d, alone) for t, d, alone in places[size])
    }
    if not changing:
        return call

    def tensor(t: RecordedTensor, i: int, name: str) -> RecordedTensor:
        shape = tuple(
            changing.get(size, size) if (name, i, dim) in varied else size
            for dim, size in enumerate(t.shape)
        )
        if shape == t.shape:
            return t
        alone = counts[t.buffer] == 1 and _dense(t) and t.offset == 0
        stride = _contiguous_strides(shape) if alone else t.stride
        return dataclasses.replace(t, shape=shape, stride=stride)

    def arg(name: str, value: Any) -> Any:
        if isinstance(value, RecordedTensor):
            return tensor(value, 0, name)
        if isinstance(value, (list, tuple)):
            return [
                tensor(v, i, name) if isinstance(v, RecordedTensor) else v
                for i, v in enumerate(value)
            ]
        return value

    return dataclasses.replace(call, args=tuple((n, arg(n, v)) for n, v in call.args))


def _shifted(case: Case, leads: dict[str, int], tails: dict[str, int]) -> Case:
    """Each buffer starting ``leads[name]`` elements later and ``tails[name]``
    longer: plain buffers become 1-D buffers with one dense view."""
    if not any(leads.values()) and not any(tails.values()):
        return case
    buffers = dict(case.buffers)
    moved: dict[str, int] = {}
    plain_shapes: dict[str, tuple[int, ...]] = {}
    for name, buffer in case.buffers.items():
        lead, tail = leads.get(name, 0), tails.get(name, 0)
        if not lead and not tail:
            continue
        moved[name] = lead
        elements = math.prod(buffer.shape)
        buffers[name] = dataclasses.replace(buffer, shape=(elements + lead + tail,))
        plain_shapes[name] = buffer.shape

    def view(value: View) -> View:
        if value.buffer not in moved:
            return value
        lead = moved[value.buffer]
        if not value.ops:  # a plain buffer: now a dense view inside a longer one
            shape = plain_shapes[value.buffer]
            return View(value.buffer, (("as_strided", shape, _contiguous_strides(shape), lead),))
        ((_, shape, stride, offset),) = value.ops
        return View(value.buffer, (("as_strided", shape, stride, offset + lead),))

    def arg(value: Any) -> Any:
        if isinstance(value, View):
            return view(value)
        if isinstance(value, list):
            return [arg(v) for v in value]
        return value

    args = {name: arg(value) for name, value in case.args.items()}
    return dataclasses.replace(case, buffers=buffers, args=args, label=case.label + ", shifted")


@st.composite
def around(draw: st.DrawFn, calls: Sequence[RecordedCall], varied: set, largest: int) -> Case:
    """A Case near one of ``calls``: varied sizes drawn again, buffers shifted."""
    call = draw(st.sampled_from(calls))
    sizes = sorted(
        {
            size
            for name, value in call.args
            for i, t in enumerate(tensors_of(value))
            for dim, size in enumerate(t.shape)
            if (name, i, dim) in varied
        }
    )
    new = {size: draw(st.integers(1, max(2, 2 * largest))) for size in sizes}
    resized = _resized(call, varied, new)
    label = "around a recorded call" + (" (resized)" if resized is not call else "")
    case = case_of(resized, draw(st.integers(0, 2**32 - 1)), label)
    shift = st.integers(0, MAX_SHIFT) if draw(st.booleans()) else st.just(0)
    leads = {name: draw(shift) for name in sorted(case.buffers)}
    tails = {name: draw(shift) for name in sorted(case.buffers)}
    return _shifted(case, leads, tails)


def recorded_cases(calls: Sequence[RecordedCall]) -> st.SearchStrategy[Case]:
    """Cases of an op's recorded calls: the calls as they were, and around them."""
    replayable = [call for call in calls if not call.unsupported()]
    varied = varied_sizes(replayable)
    largest = max(
        (
            size
            for call in replayable
            for name, value in call.args
            for i, t in enumerate(tensors_of(value))
            for dim, size in enumerate(t.shape)
            if (name, i, dim) in varied
        ),
        default=1,
    )
    as_recorded = st.sampled_from(replayable).flatmap(
        lambda call: st.integers(0, 2**32 - 1).map(lambda seed: case_of(call, seed))
    )
    return st.one_of(as_recorded, around(replayable, varied, largest))
