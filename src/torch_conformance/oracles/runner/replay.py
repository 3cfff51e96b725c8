"""Replays: the Cases of one failing Hypothesis example, saved to run them again.

A ``.cases`` file is data, not code: JSON naming only the suite's own
value types (a Case, its Buffers and Views, a Program and its Steps), so a
file attached to a bug report can hold nothing that runs when it is loaded.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import torch

from torch_conformance.oracles.core.buffers import DEFAULT, Buffer, Case, View
from torch_conformance.oracles.core.program import Program, Step
from torch_conformance.oracles.core.specification import SpecError

FORMAT = "conformance-replay/1"


@dataclasses.dataclass(frozen=True)
class Replay:
    """The Cases one failing Hypothesis example ran, to run them again."""

    spec: str
    check: str
    cases: tuple[Case, ...]
    index: int  # the failing Case
    batched: bool
    mode: str

    def save(self, path: Path) -> Path:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps({"format": FORMAT, "replay": _encode(self)}) + "\n")
        return path

    @staticmethod
    def load(path: Path) -> Replay:
        try:
            data = json.loads(Path(path).read_text())
            if not isinstance(data, dict) or data.get("format") != FORMAT:
                raise ValueError(f"not a {FORMAT} file")
            replay = _decode(data["replay"])
        except OSError as error:
            raise SpecError(f"--replay: cannot read {path}: {error.strerror}") from None
        except (ValueError, KeyError, TypeError, AttributeError, RecursionError) as error:
            raise SpecError(
                f"--replay: {path} holds no Cases to replay ({type(error).__name__}: "
                f"{str(error)[:200]}); give the .cases file a failure's report names"
            ) from None
        if not isinstance(replay, Replay):
            raise SpecError(f"--replay: {path} holds no Cases to replay")
        return replay


# The only types a replay file may name.
_TYPES: dict[str, type] = {t.__name__: t for t in (Replay, Case, Buffer, View, Program, Step)}
_NAMED = {
    "dtype": (torch.dtype, lambda name: _torch_attribute(name, torch.dtype)),
    "layout": (torch.layout, lambda name: _torch_attribute(name, torch.layout)),
    "memory_format": (
        torch.memory_format,
        lambda name: _torch_attribute(name, torch.memory_format),
    ),
}


def _torch_attribute(name: str, kind: type) -> Any:
    value = getattr(torch, name, None)
    if not isinstance(value, kind):
        raise ValueError(f"unknown {kind.__name__} {name!r}")
    return value


def _encode(value: Any) -> Any:
    if value is DEFAULT:
        return {"default": None}
    if type(value).__name__ in _TYPES and dataclasses.is_dataclass(value):
        fields = {f.name: _encode(getattr(value, f.name)) for f in dataclasses.fields(value)}
        return {"type": type(value).__name__, "fields": fields}
    if isinstance(value, float):
        return {"float": value.hex()}  # NaN, infinities and -0.0 kept
    if isinstance(value, (bool, int, str)) or value is None:
        return value
    if isinstance(value, list):
        return [_encode(v) for v in value]
    if isinstance(value, tuple):
        return {"tuple": [_encode(v) for v in value]}
    if isinstance(value, frozenset):
        return {"frozenset": [_encode(v) for v in sorted(value, key=repr)]}
    if isinstance(value, Mapping):
        return {"dict": [[_encode(k), _encode(v)] for k, v in value.items()]}
    if isinstance(value, torch.device):
        return {"device": str(value)}
    for tag, (kind, _) in _NAMED.items():
        if isinstance(value, kind):
            return {tag: str(value).removeprefix("torch.")}
    raise TypeError(f"a replay cannot hold a {type(value).__name__}")


def _decode(data: Any) -> Any:
    if isinstance(data, list):
        return [_decode(v) for v in data]
    if not isinstance(data, dict):
        return data
    if "type" in data:
        kind = _TYPES[data["type"]]  # KeyError: a type no replay holds
        return kind(**{name: _decode(v) for name, v in data["fields"].items()})
    ((tag, value),) = data.items()
    return _DECODERS[tag](value)


_DECODERS = {
    "default": lambda _: DEFAULT,
    "float": float.fromhex,
    "tuple": lambda v: tuple(_decode(x) for x in v),
    "frozenset": lambda v: frozenset(_decode(x) for x in v),
    "dict": lambda v: {_decode(k): _decode(x) for k, x in v},
    "device": torch.device,
    **{name: decode for name, (_, decode) in _NAMED.items()},
}


@dataclasses.dataclass(frozen=True)
class ReproOptions:
    """Where a failure's repro files go, and the command that reruns a test."""

    folder: Path
    rerun: str  # a command line; " --replay=<file>" is appended


def shown(path: Path) -> Path:
    """``path`` relative to the working directory where it lies below it."""
    try:
        return path.resolve().relative_to(Path.cwd())
    except ValueError:
        return path
