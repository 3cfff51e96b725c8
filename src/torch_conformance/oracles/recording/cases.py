"""Cases from recorded calls: each call as it was, and Cases drawn around them.

A recorded call becomes a Case whose buffers are the call's storages: a
tensor alone in a dense storage of its own is a plain buffer of its shape,
anything else (the views of a fused qkv buffer, a slice at an offset) a
1-D buffer holding every tensor laid in it, each argument an ``as_strided``
view of it with the recorded shape, strides and offset. Float buffers are
filled with normal values, integer ones with their recorded values where
the recording kept them, else within their recorded range.

Around a recorded call, Cases vary what the program varied: a size that
differed between the op's calls (a token count) is drawn again, up to twice
the largest recorded, where the layout lets it change (a dimension with the
largest stride, or any dimension of a dense tensor), and only so that every
Relation between the arguments that held in every call still holds (equal
sizes, a group count and its group size, a table and its indices: see
``relations``) in the calls of its structure; kept integer values whose
tensor changes size are made anew as the recorded ones show (rising from 0
to another argument's length, summing to it); and each buffer may start at
another offset and end with spare elements. Other dtypes come only from
other recorded calls: an op's kernel may take no others.
"""

from __future__ import annotations

import dataclasses
import functools
import math
import random
from collections.abc import Sequence
from typing import Any

from hypothesis import strategies as st

from torch_conformance.oracles.core.buffers import Buffer, Case, View
from torch_conformance.oracles.recording.calls import (
    RecordedBuffer,
    RecordedCall,
    RecordedTensor,
    extent,
)
from torch_conformance.oracles.recording.relations import (
    DATA,
    LAST,
    NUMEL,
    SUM,
    Place,
    Relation,
    infer,
    places,
    solve,
    structure,
    varied,
)

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
    if buffer.data is not None:
        return ("values", buffer.data)
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


def _plain(t: RecordedTensor, users: dict[int, int]) -> bool:
    """Alone in a dense buffer of its own: its strides and values may be made anew."""
    return users[t.buffer] == 1 and _dense(t) and t.offset == 0


def resizable(call: RecordedCall, varied: set[Place]) -> set[Place]:
    """The Places of ``call`` a Case may give another value: tensor
    dimensions that varied between the calls, where the layout lets them
    change (and the tensor's values, where the recording kept them, can be
    made anew); the element count of a tensor with such a dimension; and
    the last value and sum of a kept integer tensor that may be made anew,
    where they varied."""
    users = _users(call)
    free: set[Place] = set()
    for first, t in _tensors(call):
        renewable = _plain(t, users) or call.buffers[t.buffer].data is None
        dims = {
            dataclasses.replace(first, dim=dim)
            for dim in range(len(t.shape))
            if dataclasses.replace(first, dim=dim) in varied
            and _resizable(t, dim, users[t.buffer] == 1)
            and renewable
        }
        free |= dims
        if dims and len(t.shape) > 1:
            free.add(dataclasses.replace(first, dim=NUMEL))
        if _plain(t, users) and call.buffers[t.buffer].data is not None:
            free |= {dataclasses.replace(first, dim=d) for d in DATA} & varied
    return free


def _resized(call: RecordedCall, sizes: dict[Place, int]) -> RecordedCall:
    """``call`` with each tensor dimension given its size in ``sizes``."""
    users = _users(call)

    def tensor(first: Place, t: RecordedTensor) -> RecordedTensor:
        shape = tuple(
            sizes.get(dataclasses.replace(first, dim=dim), size) for dim, size in enumerate(t.shape)
        )
        if shape == t.shape:
            return t
        stride = _contiguous_strides(shape) if _plain(t, users) else t.stride
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


@dataclasses.dataclass(frozen=True)
class _Values:
    """What a kept integer tensor's values showed in every call: rising,
    from 0, never negative."""

    rising: bool
    from_zero: bool
    nonnegative: bool


def _shown(calls: Sequence[RecordedCall]) -> dict[tuple[str, int], _Values]:
    """Per tensor (argument and list element), what its kept values showed."""
    seen: dict[tuple[str, int], list[list[int]]] = {}
    for call in calls:
        for first, t in _tensors(call):
            values = call.buffers[t.buffer].values(t)
            if values is not None and len(t.shape) == 1:
                seen.setdefault(first.tensor(), []).append(values)
    return {
        where: _Values(
            all(v == sorted(v) for v in lists) and any(len(set(v)) > 1 for v in lists),
            all(not v or v[0] == 0 for v in lists),
            all(min(v, default=0) >= 0 for v in lists),
        )
        for where, lists in seen.items()
    }


def _made_values(
    draw: st.DrawFn, count: int, shown: _Values | None, last: int | None, total: int | None,
    low: int, high: int,
) -> tuple[int, ...] | None:  # fmt: skip
    """``count`` values that keep what the recorded ones showed, ending at
    ``last`` or summing to ``total`` where given (None: none can)."""
    rng = random.Random(draw(st.integers(0, 2**32 - 1)))
    if shown is not None and shown.rising and count:
        first = 0 if shown.from_zero else low
        end = high if last is None else last
        if end < first or (count == 1 and first != end):
            return None
        middle = sorted(rng.randint(first, end) for _ in range(count - 2))
        return (first, *middle, end)[-count:]
    if total is not None and (shown is None or shown.nonnegative):
        if total < 0 or (not count and total):
            return None
        cuts = sorted(rng.randint(0, total) for _ in range(count - 1)) if count else []
        ends = [0, *cuts, total]
        return tuple(b - a for a, b in zip(ends, ends[1:], strict=False))[:count]
    return tuple(rng.randint(low, high) for _ in range(count))


def _renewed(
    draw: st.DrawFn,
    call: RecordedCall,
    recorded: RecordedCall,
    sizes: dict[Place, int],
    shown: dict[tuple[str, int], _Values],
) -> RecordedCall | None:
    """``call`` (``recorded`` resized) with the kept values of every tensor
    whose size, last value or sum changed made anew; None where none fit."""
    users = _users(call)
    buffers = list(call.buffers)
    before = dict(_tensors(recorded))
    for first, t in _tensors(call):
        buffer = buffers[t.buffer]
        if buffer.data is None:
            continue
        old = before[first]
        last, total = (
            sizes.get(dataclasses.replace(first, dim=d)) for d in (LAST, SUM)
        )  # fmt: skip
        values = recorded.buffers[old.buffer].values(old) or []
        if t.shape == old.shape and last in (None, *values[-1:]) and total in (None, sum(values)):
            continue
        if not _plain(t, users):
            return None
        low = buffer.low if buffer.low is not None else 0
        high = buffer.high if buffer.high is not None else low
        made = _made_values(
            draw, math.prod(t.shape), shown.get(first.tensor()), last, total, low, high
        )
        if made is None:
            return None
        buffers[t.buffer] = dataclasses.replace(
            buffer, data=made, low=min(made, default=low), high=max(made, default=high)
        )
    return dataclasses.replace(call, buffers=tuple(buffers))


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
        fill = buffer.fill
        if isinstance(fill, tuple) and fill[0] == "values":  # kept values stay where they were
            fill = ("values", (0,) * lead + tuple(fill[1]) + (0,) * tail)
        buffers[name] = dataclasses.replace(buffer, shape=(elements + lead + tail,), fill=fill)
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
class _Structure:
    """The recorded calls of one structure (``relations.structure``), and
    what Cases drawn around them may change."""

    calls: tuple[RecordedCall, ...]
    relations: tuple[Relation, ...]
    resize: bool

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

    @functools.cached_property
    def shown(self) -> dict[tuple[str, int], _Values]:
        return _shown(self.calls)


@dataclasses.dataclass(frozen=True)
class Around:
    """What Cases drawn around an op's recorded calls may change: the sizes
    (and kept integer values) that varied between calls of one structure
    (up to twice the largest recorded), and only so that every Relation
    between the arguments that held in those calls, and ``relations``, still
    holds."""

    calls: tuple[RecordedCall, ...]
    relations: tuple[Relation, ...] = ()
    resize: bool = True

    @functools.cached_property
    def structures(self) -> dict[tuple, _Structure]:
        grouped: dict[tuple, list[RecordedCall]] = {}
        for call in self.calls:
            grouped.setdefault(structure(call), []).append(call)
        return {
            key: _Structure(tuple(calls), (*infer(calls), *self.relations), self.resize)
            for key, calls in grouped.items()
        }

    def resized(self, draw: st.DrawFn, call: RecordedCall) -> RecordedCall | None:
        """``call`` with its varied sizes drawn again (None: none may change,
        or no draw keeps every Relation)."""
        calls = self.structures[structure(call)]
        free = resizable(call, calls.changing)
        if not free:
            return None
        sizes = solve(draw, places(call), free, calls.relations, calls.largest)
        if sizes is None:
            return None
        resized = _renewed(draw, _resized(call, sizes), call, sizes, calls.shown)
        if resized is None or resized == call:
            return None
        # What the values made anew hold, every Relation keeps too.
        made = places(resized)
        return resized if all(r.holds(made) for r in calls.relations) else None


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
    drawn = Around(replayable, tuple(relations), resize)
    as_recorded = st.sampled_from(replayable).flatmap(
        lambda call: st.integers(0, 2**32 - 1).map(lambda seed: case_of(call, seed))
    )
    return st.one_of(as_recorded, around(drawn))
