"""The ties between an op's arguments that hold across its recorded calls.

Real ops tie their arguments: a per-group scale has ``x.shape[1] // group``
columns, one scale a block has ``ceil(x.numel() / blocksize)`` entries, a
block size divides the dimension it blocks, a table has more rows than its
largest index, offsets end at the values' length and lengths sum to it. A
Case whose sizes break such a tie is one the op rightly refuses, so every
Case drawn around the recorded calls keeps each Relation that held in every
call of the same structure (``structure``: which arguments are None, each
tensor's rank, each list's length) the op made.

A Place is where an integer lives in a call: a dimension of a tensor
argument (``scale.shape[1]``), its element count (``x.numel()``), an int
argument or an element of an int list (``block_size[1]``), one past the
largest value of an integer tensor (``1 + max(indices)``), and, where the
recording kept a 1-D integer tensor's values, its last value
(``offsets[-1]``) and their sum (``sum(lengths)``). The Relations between
Places, in the form a user writes them too (``recorded_spec(..., relations=[...])``):

- ``a == b``, ``a == 4 * b``: a fixed multiple (equal sizes are the multiple 1);
- ``a % b == 0``: ``b`` divides ``a``;
- ``a == b * c``: a product (a dimension split into groups of a block size);
- ``a == ceil(b / c)``: a ceil-division (one scale per block, the last
  block partial);
- ``a >= b``: a bound (a table's rows against the indices into it).
"""

from __future__ import annotations

import ast
import dataclasses
import itertools
import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from hypothesis import strategies as st

from torch_conformance.oracles.core.specification import SpecError
from torch_conformance.oracles.recording.calls import RecordedCall, RecordedTensor

# What a Place's ``dim`` holds when it is not a tensor's dimension.
VALUE = -1  # the int itself
BOUND = -2  # one past the largest value of an integer tensor
NUMEL = -3  # a tensor's element count (of rank 2 or more: else its one size)
LAST = -4  # a kept 1-D integer tensor's last value
SUM = -5  # a kept 1-D integer tensor's sum
# Places a tensor's values hold, not its layout.
DATA = (LAST, SUM)


@dataclasses.dataclass(frozen=True, order=True)
class Place:
    arg: str
    index: int = 0  # the element of a list argument
    dim: int = VALUE
    listed: bool = False  # the argument is a list

    def __str__(self) -> str:
        name = f"{self.arg}[{self.index}]" if self.listed else self.arg
        words = {
            BOUND: f"1 + max({name})",
            VALUE: name,
            NUMEL: f"{name}.numel()",
            LAST: f"{name}[-1]",
            SUM: f"sum({name})",
        }
        return words.get(self.dim, f"{name}.shape[{self.dim}]")

    def tensor(self) -> tuple[str, int]:
        """The argument (and list element) the Place lies in."""
        return self.arg, self.index


def places(call: RecordedCall) -> dict[Place, int]:
    """Every Place of ``call``, with its value."""
    found: dict[Place, int] = {}
    for name, value in call.args:
        listed = isinstance(value, (list, tuple))
        for index, item in enumerate(value if listed else [value]):
            if isinstance(item, RecordedTensor):
                found.update(_tensor_places(call, Place(name, index, 0, listed), item))
            elif isinstance(item, int) and not isinstance(item, bool):
                found[Place(name, index, VALUE, listed)] = item
    return found


def _tensor_places(call: RecordedCall, first: Place, t: RecordedTensor) -> dict[Place, int]:
    found = {dataclasses.replace(first, dim=dim): size for dim, size in enumerate(t.shape)}
    if len(t.shape) > 1:
        found[dataclasses.replace(first, dim=NUMEL)] = math.prod(t.shape)
    buffer = call.buffers[t.buffer]
    if buffer.high is not None:
        found[dataclasses.replace(first, dim=BOUND)] = buffer.high + 1
    values = buffer.values(t)
    if values and len(t.shape) == 1:
        found[dataclasses.replace(first, dim=LAST)] = values[-1]
        found[dataclasses.replace(first, dim=SUM)] = sum(values)
    return found


def structure(call: RecordedCall) -> tuple:
    """What a call's Relations are learnt within: which arguments are None,
    each tensor's rank and dtype, each list's length."""

    def kind(value: Any) -> Any:
        if isinstance(value, RecordedTensor):
            return (len(value.shape), call.buffers[value.buffer].dtype)
        if isinstance(value, (list, tuple)):
            return tuple(kind(v) for v in value)
        return "None" if value is None else type(value).__name__

    return tuple((name, kind(value)) for name, value in call.args)


@dataclasses.dataclass(frozen=True)
class Relation:
    """``a == factor * b`` (``multiple``), ``a % b == 0`` (``divides``),
    ``a == b * c`` (``product``), ``a == ceil(b / c)`` (``ceil``) or
    ``a >= b`` (``bound``)."""

    kind: str
    a: Place
    b: Place
    c: Place | None = None
    factor: int = 1

    def places(self) -> tuple[Place, ...]:
        return (self.a, self.b) if self.c is None else (self.a, self.b, self.c)

    def holds(self, values: Mapping[Place, int]) -> bool:
        """True where ``values`` keep the Relation, or lack one of its Places."""
        if any(p not in values for p in self.places()):
            return True
        a, b = values[self.a], values[self.b]
        if self.kind == "multiple":
            return a == self.factor * b
        if self.kind == "divides":
            return b > 0 and a % b == 0
        if self.kind == "product":
            assert self.c is not None
            return a == b * values[self.c]
        if self.kind == "ceil":
            assert self.c is not None
            return values[self.c] > 0 and a == -(-b // values[self.c])
        return a >= b

    def __str__(self) -> str:
        if self.kind == "multiple":
            return f"{self.a} == " + (f"{self.factor} * " if self.factor != 1 else "") + str(self.b)
        if self.kind == "divides":
            return f"{self.a} % {self.b} == 0"
        if self.kind == "product":
            return f"{self.a} == {self.b} * {self.c}"
        if self.kind == "ceil":
            return f"{self.a} == ceil({self.b} / {self.c})"
        return f"{self.a} >= {self.b}"

    def defines(self) -> Place | None:
        """The Place this Relation computes from the others (a product's or
        a ceil-division's result), settled after them."""
        return self.a if self.kind in ("product", "ceil") else None


def varied(calls: Sequence[RecordedCall]) -> set[Place]:
    """The Places whose value differs between calls."""
    seen: dict[Place, set[int]] = {}
    for call in calls:
        for place, value in places(call).items():
            seen.setdefault(place, set()).add(value)
    return {place for place, values in seen.items() if len(values) > 1}


def infer(calls: Sequence[RecordedCall]) -> tuple[Relation, ...]:
    """Every Relation that ties a Place that varied between ``calls`` and holds
    in each call that has its Places (fixed Places keep their values anyway).
    A tensor's element count is not tied to its own sizes (that tie is
    arithmetic, kept by construction)."""
    values = [places(call) for call in calls]
    changing = varied(calls)
    if not changing:
        return ()
    every = sorted({p for v in values for p in v})
    sizes = [p for p in every if p.dim != BOUND]
    found: list[Relation] = []

    def common(*ps: Place) -> list[tuple[int, ...]]:
        return [tuple(v[p] for p in ps) for v in values if all(p in v for p in ps)]

    for a, b in itertools.permutations(every, 2):
        if a not in changing and b not in changing or _own_count(a, b):
            continue
        seen = common(a, b)
        if b.dim == BOUND:
            # A tensor's own values (quantized data) bound none of its sizes.
            other = a.tensor() != b.tensor()
            if a.dim not in (BOUND, *DATA) and other and all(x >= y for x, y in seen):
                found.append(Relation("bound", a, b))
            continue
        if a.dim == BOUND or not all(y > 0 and x % y == 0 for x, y in seen):
            continue
        if not any(x > 0 for x, _ in seen):
            continue  # a Place that is always 0 ties nothing
        factors = {x // y for x, y in seen}
        if len(factors) == 1:
            (factor,) = factors
            if factor != 1 or a < b:  # equal sizes once, not twice
                found.append(Relation("multiple", a, b, factor=factor))
        elif any(y > 1 for _, y in seen):
            found.append(Relation("divides", a, b))
    for a in sizes:
        for b, c in itertools.combinations(sizes, 2):
            if a in (b, c) or not {a, b, c} & changing or _own_count(a, b, c):
                continue
            seen = common(a, b, c)
            if (
                all(x == y * z for x, y, z in seen)
                and any(y > 1 for _, y, _ in seen)
                and any(z > 1 for *_, z in seen)
            ):
                found.append(Relation("product", a, b, c))
    for a in sorted(changing & set(sizes)):
        for b, c in itertools.permutations(sizes, 2):
            if a in (b, c) or _own_count(a, b, c):
                continue
            seen = common(a, b, c)
            if (
                seen
                and all(z > 0 and x == -(-y // z) for x, y, z in seen)
                and any(z > 1 for *_, z in seen)
                # Else the product (or multiple) states it.
                and any(y % z for _, y, z in seen)
            ):
                found.append(Relation("ceil", a, b, c))
    return tuple(found)


def _own_count(*ps: Place) -> bool:
    """A tensor's element count beside its own sizes: tied by arithmetic."""
    counts = {p.tensor() for p in ps if p.dim == NUMEL}
    return any(p.tensor() in counts and p.dim != NUMEL for p in ps)


def parse(text: str, known: Iterable[Place] = ()) -> Relation:
    """A Relation written as its ``str`` (``x.shape[1] == block_size[1] * scale.shape[1]``);
    ``known``: the Places of the recorded calls, which say which arguments are lists."""
    known = set(known)
    relation = _relation(text, {p.arg for p in known if p.listed})
    unknown = [str(p) for p in relation.places() if known and p not in known]
    if unknown:
        raise SpecError(
            f"relation {text!r} names {', '.join(unknown)}, which no recorded call has; "
            f"the calls have {', '.join(sorted(map(str, known)))}"
        )
    return relation


def _relation(text: str, listed: set[str]) -> Relation:
    try:
        tree = ast.parse(text.strip(), mode="eval").body
        if not (isinstance(tree, ast.Compare) and len(tree.ops) == 1):
            raise ValueError("not one comparison")
        op, left, right = tree.ops[0], tree.left, tree.comparators[0]
        if isinstance(op, ast.GtE):
            return Relation("bound", _place(left, listed), _place(right, listed))
        if not isinstance(op, ast.Eq):
            raise ValueError("the comparison is neither == nor >=")
        if isinstance(left, ast.BinOp) and isinstance(left.op, ast.Mod):
            if not (isinstance(right, ast.Constant) and right.value == 0):
                raise ValueError("a % b compares with 0")
            return Relation("divides", _place(left.left, listed), _place(left.right, listed))
        a = _place(left, listed)
        if (
            isinstance(right, ast.Call)
            and getattr(right.func, "id", None) == "ceil"
            and len(right.args) == 1
            and isinstance(right.args[0], ast.BinOp)
            and isinstance(right.args[0].op, ast.Div)
        ):
            quotient = right.args[0]
            return Relation(
                "ceil", a, _place(quotient.left, listed), _place(quotient.right, listed)
            )
        if isinstance(right, ast.BinOp) and isinstance(right.op, ast.Mult):
            if isinstance(right.left, ast.Constant) and isinstance(right.left.value, int):
                return Relation("multiple", a, _place(right.right, listed), factor=right.left.value)
            return Relation("product", a, _place(right.left, listed), _place(right.right, listed))
        return Relation("multiple", a, _place(right, listed))
    except (SyntaxError, ValueError) as error:
        raise SpecError(
            f"relation {text!r}: {error}; write one of `a == b`, `a == 4 * b`, "
            "`a == b * c`, `a == ceil(b / c)`, `a % b == 0` or `a >= b`, where each of "
            "a, b, c is an int argument (`group_size`), a list element (`block_size[1]`), "
            "a tensor's size (`scale.shape[0]`, `tensors[1].shape[0]`) or element count "
            "(`x.numel()`), `1 + max(indices)`, or a kept integer tensor's last value "
            "(`offsets[-1]`) or sum (`sum(lengths)`)"
        ) from None


def _place(node: ast.AST, listed: set[str]) -> Place:
    """The Place an expression names."""
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "numel"
        and not node.args
    ):
        return dataclasses.replace(_place(node.func.value, listed), dim=NUMEL)
    if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "sum" and node.args:
        return dataclasses.replace(_place(node.args[0], listed), dim=SUM)
    if (
        isinstance(node, ast.Subscript)
        and isinstance(node.slice, ast.UnaryOp)
        and isinstance(node.slice.op, ast.USub)
        and getattr(node.slice.operand, "value", None) == 1
    ):
        return dataclasses.replace(_place(node.value, listed), dim=LAST)
    if (
        isinstance(node, ast.BinOp)
        and isinstance(node.op, ast.Add)
        and isinstance(node.left, ast.Constant)
        and node.left.value == 1
        and isinstance(node.right, ast.Call)
        and getattr(node.right.func, "id", None) == "max"
        and len(node.right.args) == 1
    ):
        return dataclasses.replace(_place(node.right.args[0], listed), dim=BOUND)
    if (
        isinstance(node, ast.Subscript)
        and isinstance(node.value, ast.Attribute)
        and node.value.attr == "shape"
    ):
        return dataclasses.replace(_place(node.value.value, listed), dim=_int(node.slice))
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name):
        return Place(node.value.id, _int(node.slice), VALUE, True)
    if isinstance(node, ast.Name):
        return Place(node.id, 0, VALUE, node.id in listed)
    raise ValueError(f"cannot read {ast.unparse(node)!r} as an argument's size or value")


def _int(node: ast.AST) -> int:
    if isinstance(node, ast.Constant) and isinstance(node.value, int):
        return node.value
    raise ValueError(f"{ast.unparse(node)!r} is not an index")


def solve(
    draw: Any,
    values: Mapping[Place, int],
    free: Iterable[Place],
    relations: Sequence[Relation],
    largest: Mapping[Place, int],
) -> dict[Place, int] | None:
    """New values for the ``free`` Places of one call (``values``), drawn with
    ``draw`` (Hypothesis's) so that every Relation still holds; None where the
    draw cannot keep them all. A Place a Relation fixes from Places already
    settled is settled next (an element count once its sizes are); else the
    smallest Place no product or ceil-division computes is drawn, within
    the Relations of those settled."""
    defined = {r.defines() for r in relations}
    pending = sorted(set(free) & set(values), key=lambda p: (values[p], p))
    settled = {p: v for p, v in values.items() if p not in pending}
    while pending:
        place = next((p for p in pending if _fixed(p, settled, relations, pending)), None)
        if place is None:
            drawn = [p for p in pending if p.dim not in (NUMEL, *DATA) and p not in defined]
            place = (drawn or pending)[0]
        pending.remove(place)
        if place.dim == NUMEL:
            dims = [v for q, v in settled.items() if q.tensor() == place.tensor() and q.dim >= 0]
            settled[place] = math.prod(dims)
        else:
            settled[place] = _settle(draw, place, settled, relations, largest.get(place, 1))
        if settled[place] < 1:
            return None
    if not all(r.holds(settled) for r in relations):
        return None
    return settled


def _fixed(
    place: Place, settled: Mapping[Place, int], relations: Sequence[Relation], pending: list[Place]
) -> bool:
    """The Places already settled fix ``place``'s value."""
    if place.dim == NUMEL:
        return not any(q.tensor() == place.tensor() and q.dim >= 0 for q in pending)
    for r in relations:
        if place not in r.places() or any(q not in settled for q in r.places() if q != place):
            continue
        if r.kind == "multiple" or r.defines() == place:
            return True
    return False


def _settle(
    draw: Any,
    place: Place,
    settled: Mapping[Place, int],
    relations: Sequence[Relation],
    largest: int,
) -> int:
    """A value for ``place`` given the Places already ``settled``: fixed by a
    Relation where one fixes it, else drawn within the others (0: none fits)."""
    multiple_of, divisor_of, lowest = 1, 0, 1
    for r in relations:
        if place not in r.places():
            continue
        if any(p not in settled for p in r.places() if p != place):
            if r.kind == "product" and r.a in settled:  # a factor of a settled product
                divisor_of = math.gcd(divisor_of, settled[r.a])
            continue
        if r.kind == "multiple":
            if r.a == place:
                return r.factor * settled[r.b]
            if not r.factor or settled[r.a] % r.factor:
                return 0
            return settled[r.a] // r.factor
        if r.kind == "product":
            assert r.c is not None
            if r.a == place:
                return settled[r.b] * settled[r.c]
            other = settled[r.c] if r.b == place else settled[r.b]
            return settled[r.a] // other if other and settled[r.a] % other == 0 else 0
        if r.kind == "ceil":
            return _ceil_division(draw, place, r, settled)
        if r.kind == "divides":
            if r.a == place:
                multiple_of = math.lcm(multiple_of, settled[r.b])
            else:
                divisor_of = math.gcd(divisor_of, settled[r.a])
        elif r.a == place:
            lowest = max(lowest, settled[r.b])
    if divisor_of:
        fits = [
            d for d in range(lowest, divisor_of + 1) if divisor_of % d == 0 and d % multiple_of == 0
        ]
        return draw(st.sampled_from(fits)) if fits else 0
    low = -(-lowest // multiple_of)
    return multiple_of * draw(st.integers(low, max(low, 2 * max(largest, 2) // multiple_of)))


def _ceil_division(draw: Any, place: Place, r: Relation, settled: Mapping[Place, int]) -> int:
    """``place``'s value in ``a == ceil(b / c)``, the other two settled (0: none fits)."""
    assert r.c is not None
    if r.a == place:
        divisor = settled[r.c]
        return -(-settled[r.b] // divisor) if divisor > 0 else 0
    quotient = settled[r.a]
    if r.b == place:  # any b in ((a - 1) * c, a * c]
        divisor = settled[r.c]
        low, high = (quotient - 1) * divisor + 1, quotient * divisor
        return draw(st.integers(low, high)) if 0 < low <= high else 0
    dividend = settled[r.b]
    fits = [c for c in range(1, dividend + 1) if -(-dividend // c) == quotient]
    return draw(st.sampled_from(fits)) if fits else 0
