"""The recorder: a dispatch mode that writes down every call of a
namespace's ops while a program runs eagerly (see ``calls`` for what it keeps).

Calls are seen where they reach the dispatcher, so ops called from Python,
from other ops or from a model's modules are all recorded; calls on fake or
meta tensors (tracing) are not, and neither is anything that runs in another
process: those left out are counted, per op and why, and the summary names
them. A tensor subclass that dispatches as a plain tensor (an
``nn.Parameter`` subclass) is recorded as the tensor it is. Two kinds of op
never reach the dispatch mode as themselves, and a function mode records
their calls from Python apart: an op registered as CompositeImplicitAutograd
alone decomposes into the ops its body calls (``composite``); an op whose
kernel above the dispatcher's Python key (an autograd kernel) calls other
ops is seen only as those (``above``).
"""

from __future__ import annotations

import collections
import contextlib
from collections.abc import Iterable, Iterator
from typing import Any

import torch
from torch.overrides import TorchFunctionMode
from torch.utils._python_dispatch import TorchDispatchMode

from torch_conformance.oracles.core.schema import decomposes, registering_modules, registration
from torch_conformance.oracles.recording.calls import (
    MAX_DATA,
    RecordedBuffer,
    RecordedCall,
    RecordedOp,
    RecordedTensor,
    Recording,
    Unsupported,
    extent,
)

_PLAIN = (type(None), bool, int, float, str, torch.dtype, torch.device)


class _Buffers:
    """The storages of one call, numbered as they are met."""

    def __init__(self) -> None:
        self.keys: dict[tuple, int] = {}
        self.tensors: list[list[torch.Tensor]] = []

    def index(self, tensor: torch.Tensor) -> int:
        # One storage seen as two dtypes stays two buffers: a Case's buffer
        # has one dtype; storages of two devices are two, whatever their addresses.
        key = (tensor.device, tensor.untyped_storage().data_ptr(), tensor.dtype)
        if key not in self.keys:
            self.keys[key] = len(self.tensors)
            self.tensors.append([])
        self.tensors[self.keys[key]].append(tensor)
        return self.keys[key]

    def recorded(self) -> tuple[RecordedBuffer, ...]:
        buffers = []
        for tensors in self.tensors:
            dtype, device = tensors[0].dtype, str(tensors[0].device)
            values = [t for t in tensors if t.numel()]
            if dtype.is_floating_point or dtype.is_complex or not values:
                buffers.append(RecordedBuffer(dtype, device=device))
                continue
            low = min(int(t.min()) for t in values)
            high = max(int(t.max()) for t in values)
            buffers.append(RecordedBuffer(dtype, low, high, device, _data(values)))
        return tuple(buffers)


def _data(tensors: list[torch.Tensor]) -> tuple[int, ...] | None:
    """The first elements of the tensors' storage, as far as they reach
    (None past ``MAX_DATA``)."""
    reach = extent(
        [
            RecordedTensor(0, tuple(t.shape), tuple(t.stride()), int(t.storage_offset()))
            for t in tensors
        ]
    )
    if reach > MAX_DATA:
        return None
    storage = tensors[0].as_strided((reach,), (1,), 0)
    return tuple(int(v) for v in storage.cpu().tolist())


def _arguments(op: torch._ops.OpOverload, args: tuple, kwargs: dict) -> list[tuple[str, Any]]:
    """The call's arguments by schema name; defaulted ones left out."""
    named = []
    for position, argument in enumerate(op._schema.arguments):
        if position < len(args) and not argument.kwarg_only:
            named.append((argument.name, args[position]))
        elif argument.name in kwargs:
            named.append((argument.name, kwargs[argument.name]))
    return named


def _record_value(value: Any, buffers: _Buffers) -> Any:
    if isinstance(value, torch.Tensor):
        return RecordedTensor(
            buffers.index(value),
            tuple(map(int, value.shape)),
            tuple(map(int, value.stride())),
            int(value.storage_offset()),
        )
    if isinstance(value, (list, tuple)):
        return [_record_value(v, buffers) for v in value]
    if isinstance(value, _PLAIN):
        return value
    return Unsupported(type(value).__name__)


def _left_out(value: Any) -> str | None:
    """Why a call with ``value`` among its arguments is not a real eager call
    the recorder can replay (None: it is one). A tensor subclass that
    dispatches as a plain tensor (an ``nn.Parameter`` subclass, a quantized
    weight class) is one: its data is a plain tensor's."""
    if isinstance(value, torch.Tensor):
        kind = type(value)
        if value.device.type == "meta":
            return "on meta tensors"
        if kind.__torch_dispatch__ is not torch.Tensor.__torch_dispatch__:
            return f"on a {kind.__name__} (a tensor subclass that dispatches itself: tracing)"
        return None
    if isinstance(value, (list, tuple)):
        return next(filter(None, map(_left_out, value)), None)
    return None


# What a recorded call's op is, by how its calls reached the recorder.
OP, COMPOSITE, ABOVE = "op", "composite", "above"


class Recorder(TorchDispatchMode):
    """Records the calls of the ops of ``namespaces`` made while it is active,
    and counts, per op and reason, the calls it leaves out."""

    def __init__(self, namespaces: Iterable[str]):
        super().__init__()
        self.namespaces = frozenset(namespaces)
        self.calls: dict[str, collections.Counter] = {}
        self.schemas: dict[str, str] = {}
        self.ops: dict[str, torch._ops.OpOverload] = {}
        self.kinds: dict[str, str] = {}
        self.dispatched: collections.Counter = collections.Counter()
        self.left_out: dict[str, collections.Counter] = {}

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if isinstance(func, torch._ops.OpOverload) and self.wants(func, args, kwargs):
            self.dispatched[_qualified(func)] += 1
            self._record(func, args, kwargs, OP)
        return func(*args, **kwargs)

    def wants(self, op: torch._ops.OpOverload, args: tuple, kwargs: dict) -> bool:
        """A call of the namespaces' ops on real tensors; one on others is counted as left out."""
        if op.namespace not in self.namespaces:
            return False
        why = _left_out((args, list(kwargs.values())))
        if why is not None:
            self.left_out.setdefault(_qualified(op), collections.Counter())[why] += 1
        return why is None

    def _record(self, op: torch._ops.OpOverload, args: tuple, kwargs: dict, kind: str) -> None:
        self._count(op, _key(op, args, kwargs), kind)

    def _count(self, op: torch._ops.OpOverload, key: tuple, kind: str) -> None:
        name = _qualified(op)
        self.calls.setdefault(name, collections.Counter())[key] += 1
        self.schemas[name] = str(op._schema)
        self.ops[name] = op
        self.kinds.setdefault(name, kind)

    def recording(self, command: Iterable[str] = (), imports: Iterable[str] = ()) -> Recording:
        ops = {
            name: RecordedOp(
                self.schemas[name],
                tuple(
                    RecordedCall(buffers, _thawed(args), count)
                    for (buffers, args), count in counter.most_common()
                ),
                registration(self.ops[name]),
            )
            for name, counter in self.calls.items()
        }
        found = [m for op in self.ops.values() for m in registering_modules(op.name())]

        def of(kind: str) -> dict[str, RecordedOp]:
            return {name: op for name, op in ops.items() if self.kinds[name] == kind}

        return Recording(
            of(OP),
            tuple(dict.fromkeys([*imports, *found])),
            tuple(sorted(torch.ops.loaded_libraries)),
            tuple(command),
            composite=of(COMPOSITE),
            above=of(ABOVE),
            left_out={name: dict(reasons) for name, reasons in sorted(self.left_out.items())},
        )


class _Python(TorchFunctionMode):
    """Records the Python calls of the recorder's ops that its dispatch mode
    cannot see: those that decompose before it (CompositeImplicitAutograd
    alone), and those whose kernel above it (an autograd kernel) calls other
    ops, which the dispatch mode sees instead."""

    def __init__(self, recorder: Recorder):
        super().__init__()
        self.recorder = recorder

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        op = func
        if isinstance(func, torch._ops.OpOverloadPacket):
            with contextlib.suppress(RuntimeError):  # no overload takes these arguments
                op = getattr(
                    func, torch._C._jit_resolve_packet(func._qualified_op_name, *args, **kwargs)
                )
        if (
            not isinstance(op, torch._ops.OpOverload)
            or op.namespace not in self.recorder.namespaces
        ):
            return func(*args, **kwargs)
        if decomposes(op):
            if self.recorder.wants(op, args, kwargs):
                self.recorder._record(op, args, kwargs, COMPOSITE)
            return func(*args, **kwargs)
        name = _qualified(op)
        seen = self.recorder.dispatched[name]
        real = _left_out((args, list(kwargs.values()))) is None
        # The arguments as they were before the call, as the dispatch mode records them.
        key = _key(op, args, kwargs) if real else None
        result = func(*args, **kwargs)
        if key is not None and self.recorder.dispatched[name] == seen:
            self.recorder._count(op, key, ABOVE)
        return result


def _key(op: torch._ops.OpOverload, args: tuple, kwargs: dict) -> tuple:
    """A call as the recording keeps it: its buffers and named arguments
    (lists frozen to tuples, so equal calls merge)."""
    buffers = _Buffers()
    named = tuple((name, _record_value(v, buffers)) for name, v in _arguments(op, args, kwargs))
    return (buffers.recorded(), _frozen(named))


class _List(tuple):
    """A list argument, frozen (hashable, and told apart from the tuples around it)."""


def _frozen(value: Any) -> Any:
    if isinstance(value, list):
        return _List(_frozen(v) for v in value)
    if isinstance(value, tuple):
        return tuple(_frozen(v) for v in value)
    return value


def _thawed(value: Any) -> Any:
    if isinstance(value, _List):
        return [_thawed(v) for v in value]
    if isinstance(value, tuple):
        return tuple(_thawed(v) for v in value)
    return value


def _qualified(op: torch._ops.OpOverload) -> str:
    overload = op._schema.overload_name
    return op._schema.name + (f".{overload}" if overload else "")


@contextlib.contextmanager
def recording(namespaces: Iterable[str]) -> Iterator[Recorder]:
    """Record the calls of the ops of ``namespaces`` made in the block."""
    recorder = Recorder(namespaces)
    with recorder, _Python(recorder):
        yield recorder
