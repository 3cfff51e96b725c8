"""The recording: what each call of an op received, never tensor data.

A recorded call holds, per schema argument, its plain value or, for a
tensor, its dtype, shape, strides, storage offset and the buffer (one
storage, on its device) it lies in, so arguments that are views of one buffer (the q, k
and v of a fused qkv split) stay views of one buffer when the call is
replayed. Integer tensors (positions, indices, offsets, lengths, slot
mappings) keep the range of their values and, up to ``MAX_DATA`` elements a
buffer, the values themselves: a recorded call replays with the offsets and
lengths it was made with, and Cases drawn around it keep what the values
show (offsets that rise from 0 to another argument's length, lengths that
sum to it, indices below a size). Float data is never kept. Equal calls are
merged, with their count.

The file is JSON: ``{"version", "command", "torch", "imports", "paths", "libraries",
"ops": {qualified name: {"schema", "registration", "calls": [{"count", "buffers",
"args"}]}}, "composite": {the same, for ops that decompose}, "above": {the
same, for ops whose autograd kernel calls others}, "left_out": {op: {why: count}}}``; a buffer
names its device where it is not the CPU, and an integer one its ``data``
(its storage's first elements, as far as its tensors reach) where it kept it.
"""

from __future__ import annotations

import dataclasses
import json
import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import torch

from torch_conformance.oracles.core.devices import DEFAULT_DEVICE

VERSION = 1
# The most elements of an integer buffer whose values a recording keeps.
MAX_DATA = 4096


class RecordingError(ValueError):
    """A recording file cannot be read."""


@dataclasses.dataclass(frozen=True)
class RecordedTensor:
    buffer: int  # index into the call's buffers
    shape: tuple[int, ...]
    stride: tuple[int, ...]
    offset: int


@dataclasses.dataclass(frozen=True)
class RecordedBuffer:
    """One storage of a call: its dtype, the range of its values for
    integers, its device, and an integer storage's values where it kept them."""

    dtype: torch.dtype
    low: int | None = None  # integer values lie in [low, high]
    high: int | None = None
    device: str = DEFAULT_DEVICE
    data: tuple[int, ...] | None = None  # the storage's first elements, as far as its views reach

    def values(self, tensor: RecordedTensor) -> list[int] | None:
        """The values of ``tensor`` (a view of this buffer), flattened; None where not kept."""
        if self.data is None:
            return None
        if not math.prod(tensor.shape):
            return []
        storage = torch.tensor(self.data, dtype=torch.int64)
        return storage.as_strided(tensor.shape, tensor.stride, tensor.offset).reshape(-1).tolist()


@dataclasses.dataclass(frozen=True)
class Unsupported:
    """An argument value a Case cannot hold (its type named); the call is kept
    in the recording but not replayed."""

    kind: str


@dataclasses.dataclass(frozen=True)
class RecordedCall:
    buffers: tuple[RecordedBuffer, ...]
    args: tuple[tuple[str, Any], ...]  # schema name, plain value or RecordedTensor (or lists)
    count: int = 1

    @property
    def device(self) -> str:
        """Where the call ran: its buffers' device (a CUDA op's CPU
        arguments aside), the CPU where it had no other."""
        devices = [b.device for b in self.buffers if b.device != DEFAULT_DEVICE]
        return devices[0] if devices else DEFAULT_DEVICE

    def unsupported(self) -> list[str]:
        """The arguments a Case cannot hold, as ``name (type)``."""
        found = []
        for name, value in self.args:
            values = value if isinstance(value, (list, tuple)) else [value]
            found += [f"{name} ({v.kind})" for v in values if isinstance(v, Unsupported)]
        return found


@dataclasses.dataclass(frozen=True)
class RecordedOp:
    schema: str
    calls: tuple[RecordedCall, ...]
    registration: str = ""  # what registered its fake, in words (``schema.registration``)

    @property
    def count(self) -> int:
        return sum(call.count for call in self.calls)


@dataclasses.dataclass(frozen=True)
class Recording:
    ops: Mapping[str, RecordedOp]  # by qualified name, ``ns::name`` or ``ns::name.overload``
    imports: tuple[str, ...] = ()  # modules that register the ops' fakes and kernels
    libraries: tuple[str, ...] = ()  # op libraries the program had loaded
    command: tuple[str, ...] = ()
    torch: str = torch.__version__
    # Ops that decompose before the dispatcher (CompositeImplicitAutograd),
    # recorded from Python: judged by what they decompose into.
    composite: Mapping[str, RecordedOp] = dataclasses.field(default_factory=dict)
    # Ops whose kernel above the dispatcher's Python key (an autograd kernel)
    # calls other ops, recorded from Python.
    above: Mapping[str, RecordedOp] = dataclasses.field(default_factory=dict)
    # Per op, the calls left out (on fake or meta tensors, ...): how many, and why.
    left_out: Mapping[str, Mapping[str, int]] = dataclasses.field(default_factory=dict)
    # The folders ``imports`` are imported from: relative to the recording's
    # own folder where they lie in it, else absolute.
    paths: tuple[str, ...] = ()

    @property
    def checked(self) -> dict[str, RecordedOp]:
        """Every op whose calls the checks replay: those seen at the
        dispatcher, those that decompose and those above it."""
        return {**self.ops, **self.composite, **self.above}

    def save(self, path: Path) -> Path:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(_encode_recording(self), indent=1) + "\n")
        return path

    @staticmethod
    def load(path: Path) -> Recording:
        try:
            data = json.loads(Path(path).read_text())
        except (OSError, json.JSONDecodeError) as error:
            raise RecordingError(f"{path}: cannot read the recording: {error}") from None
        if not isinstance(data, dict) or data.get("version") != VERSION:
            raise RecordingError(
                f"{path}: not a recording of this suite (version {VERSION}); record "
                "one with `torch-conformance record NAMESPACE --out FILE -- COMMAND`"
            )
        try:
            return _decode_recording(data)
        except (KeyError, TypeError, ValueError, AttributeError) as error:
            raise RecordingError(f"{path}: malformed recording: {error!r}") from None


def _dtype_name(dtype: torch.dtype) -> str:
    return str(dtype).removeprefix("torch.")


def _dtype(name: str) -> torch.dtype:
    dtype = getattr(torch, name, None)
    if not isinstance(dtype, torch.dtype):
        raise ValueError(f"unknown dtype {name!r}")
    return dtype


def encode_value(value: Any) -> Any:
    """One argument value as JSON (tagged, so a float stays a float and a
    dtype a dtype; floats by their bits: NaN, infinities and -0.0 kept)."""
    if isinstance(value, RecordedTensor):
        return {
            "tensor": {
                "buffer": value.buffer,
                "shape": list(value.shape),
                "stride": list(value.stride),
                "offset": value.offset,
            }
        }
    if isinstance(value, (list, tuple)):
        return {"list": [encode_value(v) for v in value]}
    if isinstance(value, Unsupported):
        return {"unsupported": value.kind}
    if isinstance(value, float):
        return {"float": value.hex()}
    if isinstance(value, torch.dtype):
        return {"dtype": _dtype_name(value)}
    if isinstance(value, torch.device):
        return {"device": str(value)}
    return {"value": value}


def decode_value(data: Mapping[str, Any]) -> Any:
    ((tag, value),) = data.items()
    if tag == "tensor":
        return RecordedTensor(
            value["buffer"], tuple(value["shape"]), tuple(value["stride"]), value["offset"]
        )
    if tag == "list":
        return [decode_value(v) for v in value]
    decoders = {
        "unsupported": Unsupported,
        "float": float.fromhex,
        "dtype": _dtype,
        "device": torch.device,
        "value": lambda v: v,
    }
    return decoders[tag](value)


def encode_call(call: RecordedCall) -> dict[str, Any]:
    return {
        "count": call.count,
        "buffers": [
            {"dtype": _dtype_name(b.dtype)}
            | ({} if b.low is None else {"range": [b.low, b.high]})
            # CPU buffers say nothing, as recordings did before they kept devices.
            | ({} if b.device == DEFAULT_DEVICE else {"device": b.device})
            | ({} if b.data is None else {"data": list(b.data)})
            for b in call.buffers
        ],
        "args": {name: encode_value(value) for name, value in call.args},
    }


def _decode_buffer(data: Mapping[str, Any]) -> RecordedBuffer:
    low, high = data.get("range") or (None, None)
    kept = data.get("data")
    return RecordedBuffer(
        _dtype(data["dtype"]),
        low,
        high,
        data.get("device", DEFAULT_DEVICE),
        None if kept is None else tuple(map(int, kept)),
    )


def _decode_call(data: Mapping[str, Any]) -> RecordedCall:
    buffers = tuple(_decode_buffer(b) for b in data["buffers"])
    args = tuple((name, decode_value(v)) for name, v in data["args"].items())
    return RecordedCall(buffers, args, int(data["count"]))


def _encode_recording(recording: Recording) -> dict[str, Any]:
    return {
        "version": VERSION,
        "command": list(recording.command),
        "torch": recording.torch,
        "imports": list(recording.imports),
        "libraries": list(recording.libraries),
        "ops": _encode_ops(recording.ops),
        "composite": _encode_ops(recording.composite),
        "above": _encode_ops(recording.above),
        "left_out": {name: dict(reasons) for name, reasons in recording.left_out.items()},
        "paths": list(recording.paths),
    }


def _encode_ops(ops: Mapping[str, RecordedOp]) -> dict[str, Any]:
    return {
        name: {
            "schema": op.schema,
            "registration": op.registration,
            "calls": [encode_call(c) for c in op.calls],
        }
        for name, op in sorted(ops.items())
    }


def _decode_ops(ops: Mapping[str, Any]) -> dict[str, RecordedOp]:
    return {
        name: RecordedOp(
            op["schema"], tuple(_decode_call(c) for c in op["calls"]), op.get("registration", "")
        )
        for name, op in ops.items()
    }


def _decode_recording(data: Mapping[str, Any]) -> Recording:
    return Recording(
        _decode_ops(data["ops"]),
        tuple(data.get("imports", ())),
        tuple(data.get("libraries", ())),
        tuple(data.get("command", ())),
        data.get("torch", "?"),
        _decode_ops(data.get("composite", {})),
        _decode_ops(data.get("above", {})),
        {name: dict(reasons) for name, reasons in data.get("left_out", {}).items()},
        tuple(data.get("paths", ())),
    )


def extent(tensors: list[RecordedTensor]) -> int:
    """Elements a buffer must hold for every tensor laid in it."""
    ends = [
        t.offset + sum((size - 1) * stride for size, stride in zip(t.shape, t.stride, strict=True))
        for t in tensors
        if math.prod(t.shape) > 0
    ]
    return max(ends, default=-1) + 1
