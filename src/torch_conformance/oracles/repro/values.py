"""Values and comments written as Python source for a script."""

from __future__ import annotations

import keyword
import math
import textwrap
from typing import Any

import torch

from torch_conformance.oracles.core.signature import Size


class ReproError(ValueError):
    """A value the script cannot write down as Python."""


def literal(value: Any) -> str:
    """``value`` as Python source: ``float("nan")``, ``torch.bfloat16``, ..."""
    if isinstance(value, str):
        text = repr(value)
        if text.startswith("'") and '"' not in value:
            text = '"' + text[1:-1].replace("\\'", "'") + '"'
        return text
    if value is None or isinstance(value, bool):
        return repr(value)
    if isinstance(value, int):
        return repr(int(value))
    if isinstance(value, float):
        if math.isnan(value):
            return '-float("nan")' if math.copysign(1.0, value) < 0 else 'float("nan")'
        if math.isinf(value):
            return 'float("inf")' if value > 0 else 'float("-inf")'
        return repr(value)
    if isinstance(value, (torch.dtype, torch.layout, torch.memory_format)):
        return str(value)
    if isinstance(value, torch.device):
        return f"torch.device({str(value)!r})"
    if isinstance(value, torch._ops.OpOverload):
        return op_expression(value)
    if isinstance(value, torch._ops.OpOverloadPacket):
        namespace, _, name = value._qualified_op_name.partition("::")
        return f"torch.ops.{namespace}.{name}"
    if isinstance(value, list):
        return "[" + ", ".join(literal(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{literal(k)}: {literal(v)}" for k, v in value.items()) + "}"
    if isinstance(value, (set, frozenset)):
        items = sorted(literal(v) for v in value)
        return "{" + ", ".join(items) + "}" if items else "set()"
    if isinstance(value, tuple):
        items = [literal(v) for v in value]
        return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"
    raise ReproError(f"a {type(value).__name__} ({value!r}) cannot be written as Python")


def literal_ok(value: Any) -> bool:
    try:
        literal(value)
    except ReproError:
        return False
    return True


def op_expression(overload: torch._ops.OpOverload) -> str:
    name = overload._schema.name.partition("::")[2]
    return f"torch.ops.{overload.namespace}.{name}.{overload._overloadname}"


def size_literal(value: Any) -> str:
    """A view parameter as Python: a Size placeholder becomes the program's size input."""
    if isinstance(value, Size):
        return f"s{value.index}"
    if isinstance(value, tuple):
        items = [size_literal(v) for v in value]
        return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"
    if isinstance(value, list):
        return "[" + ", ".join(size_literal(v) for v in value) + "]"
    return literal(value)


def identifier(name: str, taken: set[str], fallback: str) -> str:
    """``name`` (or ``fallback`` if it is no identifier), numbered apart from ``taken``."""
    base = name if name.isidentifier() and not keyword.iskeyword(name) else fallback
    candidate, number = base, 2
    while candidate in taken:
        candidate, number = f"{base}_{number}", number + 1
    taken.add(candidate)
    return candidate


def comment(text: str, indent: str = "", width: int = 88) -> str:
    """``text`` as comment lines; a blank line starts a new paragraph, and the
    lines after the first of a paragraph are indented by ``indent``."""
    lines = []
    for paragraph in text.split("\n\n"):
        wrapped = textwrap.wrap(
            " ".join(paragraph.split()),
            width - 2,
            subsequent_indent=indent,
            break_on_hyphens=False,
            break_long_words=False,
        )
        lines += [f"# {line}".rstrip() for line in wrapped or [""]]
        lines.append("#")
    return "\n".join(lines[:-1])
