"""The recorder: a dispatch mode that writes down every call of a
namespace's ops while a program runs eagerly (see ``calls`` for what it keeps).

Calls are seen where they reach the dispatcher, so ops called from Python,
from other ops or from a model's modules are all recorded; calls on fake or
meta tensors (tracing) are not, and neither is anything that runs in another
process. An op registered as CompositeImplicitAutograd alone decomposes into
the ops its body calls before any dispatch mode sees it: a function mode
records its calls from Python apart, as ``composite`` (no fake or compile
check applies to such an op: what runs is its body's ops).
"""

from __future__ import annotations

import collections
import contextlib
from collections.abc import Iterable, Iterator
from typing import Any

import torch
from torch.overrides import TorchFunctionMode
from torch.utils._python_dispatch import TorchDispatchMode

from oracles.core.schema import decomposes, registering_modules, registration
from oracles.recording.calls import (
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
        [RecordedTensor(0, tuple(t.shape), tuple(t.stride()), t.storage_offset()) for t in tensors]
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


def _real(value: Any) -> bool:
    """No fake, meta or other tensor subclass in ``value``: a real eager call."""
    if isinstance(value, torch.Tensor):
        real = type(value) in (torch.Tensor, torch.nn.Parameter)
        return real and value.device.type != "meta"
    if isinstance(value, (list, tuple)):
        return all(_real(v) for v in value)
    return True


class Recorder(TorchDispatchMode):
    """Records the calls of the ops of ``namespaces`` made while it is active."""

    def __init__(self, namespaces: Iterable[str]):
        super().__init__()
        self.namespaces = frozenset(namespaces)
        self.calls: dict[str, collections.Counter] = {}
        self.schemas: dict[str, str] = {}
        self.ops: dict[str, torch._ops.OpOverload] = {}

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if isinstance(func, torch._ops.OpOverload) and self.wants(func, args, kwargs):
            self._record(func, args, kwargs)
        return func(*args, **kwargs)

    def wants(self, op: torch._ops.OpOverload, args: tuple, kwargs: dict) -> bool:
        return op.namespace in self.namespaces and _real((args, list(kwargs.values())))

    def _record(self, op: torch._ops.OpOverload, args: tuple, kwargs: dict) -> None:
        buffers = _Buffers()
        named = tuple((name, _record_value(v, buffers)) for name, v in _arguments(op, args, kwargs))
        # Lists freeze to tuples so equal calls merge.
        key = (buffers.recorded(), _frozen(named))
        name = _qualified(op)
        self.calls.setdefault(name, collections.Counter())[key] += 1
        self.schemas[name] = str(op._schema)
        self.ops[name] = op

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
        return Recording(
            {name: op for name, op in ops.items() if not decomposes(self.ops[name])},
            tuple(dict.fromkeys([*imports, *found])),
            tuple(sorted(torch.ops.loaded_libraries)),
            tuple(command),
            composite={name: op for name, op in ops.items() if decomposes(self.ops[name])},
        )


class _Composite(TorchFunctionMode):
    """Records the Python calls of the recorder's ops that decompose before
    its dispatch mode could see them (CompositeImplicitAutograd alone)."""

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
            isinstance(op, torch._ops.OpOverload)
            and self.recorder.wants(op, args, kwargs)
            and decomposes(op)
        ):
            self.recorder._record(op, args, kwargs)
        return func(*args, **kwargs)


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
    with recorder, _Composite(recorder):
        yield recorder
