"""Cases from recorded calls: each call as it was, and Cases drawn around them.

A recorded call becomes a Case whose buffers are the call's storages: a
tensor alone in a dense storage of its own is a plain buffer of its shape,
anything else (the views of a fused qkv buffer, a slice at an offset) a
1-D buffer holding every tensor laid in it, each argument an ``as_strided``
view of it with the recorded shape, strides and offset. Float buffers are
filled with normal values, integer ones within their recorded range.

Around a recorded call, Cases vary what the program varied: a size that
differed between the op's calls (a token count) is drawn again, up to twice
the largest recorded, where the layout lets it change (a dimension with the
largest stride, or any dimension of a dense tensor), and only so that every
Relation between the arguments that held in every call still holds (equal
sizes, a group count and its group size, a table and its indices: see
``relations``); and each buffer may start at another offset and end with
spare elements. Other dtypes come only from other recorded calls: an op's
kernel may take no others.
"""

from __future__ import annotations

import dataclasses
import functools
import math
from collections.abc import Sequence
from typing import Any

from hypothesis import strategies as st

from oracles.core.buffers import Buffer, Case, View
from oracles.recording.calls import RecordedBuffer, RecordedCall, RecordedTensor, extent
from oracles.recording.relations import Place, Relation, infer, places, solve, varied

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

    args = {name: arg(value) for name, value in call.args}
    return Case(buffers, args, seed=seed, label=label, device=call.device)


def _resizable(t: RecordedTensor, dim: int, alone: bool) -> bool:
    """Changing this dimension's size leaves the other dimensions' strides
    meaningful: it has the largest stride, or the tensor is dense and alone
    in its buffer (its strides are then recomputed)."""
    if alone and _dense(t) and t.offset == 0:
        return True
    return t.stride[dim] == max(t.stride) and t.stride.count(t.stride[dim]) == 1


def _tensors(call: RecordedCall) -> list[tuple[Place, RecordedTensor]]:
    """Each tensor of ``call`` with the Place of its first dimension."""
    return [
        (Place(name, i, 0, not isinstance(value, RecordedTensor)), t)
        for name, value in call.args
        for i, t in enumerate(tensors_of(value))
    ]


def _users(call: RecordedCall) -> dict[int, int]:
    """How many tensors of ``call`` lie in each buffer."""
    counts: dict[int, int] = {}
    for _, t in _tensors(call):
        counts[t.buffer] = counts.get(t.buffer, 0) + 1
    return counts


def resizable(call: RecordedCall, varied: set[Place]) -> set[Place]:
    """The Places of ``call`` a Case may give another size: tensor dimensions
    that varied between the calls, where the layout lets them change."""
    users = _users(call)
    return {
        dataclasses.replace(first, dim=dim)
        for first, t in _tensors(call)
        for dim in range(len(t.shape))
        if dataclasses.replace(first, dim=dim) in varied
        and _resizable(t, dim, users[t.buffer] == 1)
    }


def _resized(call: RecordedCall, sizes: dict[Place, int]) -> RecordedCall:
    """``call`` with each tensor dimension given its size in ``sizes``."""
    users = _users(call)

    def tensor(first: Place, t: RecordedTensor) -> RecordedTensor:
        shape = tuple(
            sizes.get(dataclasses.replace(first, dim=dim), size) for dim, size in enumerate(t.shape)
        )
        if shape == t.shape:
            return t
        alone = users[t.buffer] == 1 and _dense(t) and t.offset == 0
        stride = _contiguous_strides(shape) if alone else t.stride
        return dataclasses.replace(t, shape=shape, stride=stride)

    def arg(name: str, value: Any) -> Any:
        if isinstance(value, RecordedTensor):
            return tensor(Place(name), value)
        if isinstance(value, (list, tuple)):
            return [
                tensor(Place(name, i, 0, True), v) if isinstance(v, RecordedTensor) else v
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


@dataclasses.dataclass(frozen=True)
class Around:
    """What Cases drawn around an op's recorded calls may change: the sizes
    that varied between calls (up to twice the largest recorded), and only
    so that every Relation between the arguments still holds."""

    calls: tuple[RecordedCall, ...]
    relations: tuple[Relation, ...]
    resize: bool = True

    @functools.cached_property
    def changing(self) -> set[Place]:
        return varied(self.calls) if self.resize else set()

    @functools.cached_property
    def largest(self) -> dict[Place, int]:
        found: dict[Place, int] = {}
        for call in self.calls:
            for place, value in places(call).items():
                found[place] = max(found.get(place, 0), value)
        return found

    def resized(self, draw: st.DrawFn, call: RecordedCall) -> RecordedCall | None:
        """``call`` with its varied sizes drawn again (None: none may change,
        or no draw keeps every Relation)."""
        free = resizable(call, self.changing)
        if not free:
            return None
        sizes = solve(draw, places(call), free, self.relations, self.largest)
        if sizes is None:
            return None
        resized = _resized(call, sizes)
        return None if resized == call else resized


@st.composite
def around(draw: st.DrawFn, calls: Around) -> Case:
    """A Case near one of the recorded calls: varied sizes drawn again where
    every Relation allows, buffers shifted."""
    call = draw(st.sampled_from(calls.calls))
    resized = calls.resized(draw, call)
    label = "around a recorded call" + (" (resized)" if resized is not None else "")
    case = case_of(resized or call, draw(st.integers(0, 2**32 - 1)), label)
    shift = st.integers(0, MAX_SHIFT) if draw(st.booleans()) else st.just(0)
    leads = {name: draw(shift) for name in sorted(case.buffers)}
    tails = {name: draw(shift) for name in sorted(case.buffers)}
    return _shifted(case, leads, tails)


def recorded_cases(
    calls: Sequence[RecordedCall], relations: Sequence[Relation] = (), resize: bool = True
) -> st.SearchStrategy[Case]:
    """Cases of an op's recorded calls: the calls as they were, and around
    them, keeping the Relations inferred from the calls and ``relations``."""
    replayable = tuple(call for call in calls if not call.unsupported())
    drawn = Around(replayable, (*infer(replayable), *relations), resize)
    as_recorded = st.sampled_from(replayable).flatmap(
        lambda call: st.integers(0, 2**32 - 1).map(lambda seed: case_of(call, seed))
    )
    return st.one_of(as_recorded, around(drawn))
