"""Hypothesis draws the program around an op, legal by construction.

Each Step is drawn against the values made so far, tracked as shadows (see
``legality``): shapes, strides and the storage positions each value covers,
so every Step fits the value it applies to and no Step is undefined in
eager. Deleting a Step while shrinking re-draws the rest against the new
values, which keeps the program legal.

- Before the op: in-place updates of its floating-point arguments and of
  views of them (an integer argument is an index, and its range is the op's
  domain).
- The op, on its arguments as the Case made them (views of shared buffers).
- After it: views (narrow, select, strided slices, permute, transpose,
  view, reshape, unfold, expand, as_strided), reads that copy (clone, flip,
  roll, index_select, cat), exact arithmetic, in-place updates (add_, mul_,
  neg_, fill_, copy_, index_copy_, setitem) and a second opaque mutating op.
- It returns what the op produced (its outputs, or the arguments it writes),
  every value no later Step reads, and some other values.

Values stay exact: arithmetic only where a compiled program must round as
eager does (one rounding of float32, float64 or integer values; doubling and
negation anywhere). Around a spec judged by a ULP budget, whose values are
compared with a float64 program, the program only reads what the op made:
views (not ``view`` or ``as_strided``, which depend on the real outputs'
strides), copies and doubling.
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
from typing import Any

import torch
from hypothesis import assume
from hypothesis import strategies as st

from torch_conformance.oracles.core.buffers import Case
from torch_conformance.oracles.core.observation import flatten_outputs
from torch_conformance.oracles.core.program import STEPS, Program, Step
from torch_conformance.oracles.core.specification import Spec
from torch_conformance.oracles.modes.isolated import kills
from torch_conformance.oracles.strategies.legality import internally_overlapping, overlap
from torch_conformance.oracles.strategies.tangents import tangent_layouts

# Steps drawn before and after the op, at most.
BEFORE = 3
AFTER = 6
# Dtypes whose single rounding a compiled program reproduces exactly.
_EXACT_ARITHMETIC = (torch.float32, torch.float64, torch.int32, torch.int64)


@dataclasses.dataclass(frozen=True)
class Value:
    """A value of the program as generation sees it."""

    shadow: torch.Tensor  # storage positions, with the value's shape and strides
    storage: str  # a Case buffer's name, or "fresh<n>"
    dtype: torch.dtype
    origin: str  # "input" (a view of a Case buffer), "fresh", or "intermediate"
    overlapping: bool = False  # a view in its chain has internal overlap
    through: frozenset[str] = frozenset()  # unfold/as_strided views in its chain

    @property
    def floating(self) -> bool:
        return self.dtype.is_floating_point

    @property
    def writable(self) -> bool:
        return not self.overlapping and not internally_overlapping(self.shadow)

    def meets(self, other: Value) -> str:
        return overlap(self.shadow, other.shadow, self.storage == other.storage)


class _Builder:
    """The values and Steps of one program being drawn."""

    def __init__(self, draw: st.DrawFn, spec: Spec, case: Case, kinds: tuple[str, ...] | None):
        self.draw = draw
        self.kinds = kinds
        self.spec = spec
        self.case = case
        self.steps: list[Step] = []
        self.values: list[Value | None] = []
        self.fresh = itertools.count()
        shadows = {name: torch.arange(_numel(b)).view(b.shape) for name, b in case.buffers.items()}
        bound = case.bind(shadows)
        meta = case.bind(case.meta_buffers())
        self.inputs = tuple(n for n, v in bound.items() if isinstance(v, torch.Tensor))
        for name in self.inputs:
            self.values.append(
                Value(bound[name], case.args[name].buffer, meta[name].dtype, "input")
            )
        self.exact = spec.bit_exact
        self.written_through: set[str] = set()
        # Per storage, the positions the op produced that no later Step has
        # overwritten without reading them (set by the op's Step).
        self.unwritten: dict[str, torch.Tensor] = {}
        self.kind: str | None = None  # the kind of Step being drawn

    # -- what a step may apply to

    def tensors(self, where=lambda v: True) -> list[int]:
        return [i for i, v in enumerate(self.values) if v is not None and where(v)]

    def value(self, number: int) -> Value:
        """The tensor value ``number`` (``tensors`` offers no other)."""
        value = self.values[number]
        assert value is not None, f"value {number} is no tensor"
        return value

    def pick(self, candidates: list[int]) -> int | None:
        """One of ``candidates``, of a dtype eager torch runs the Step being drawn on."""
        if self.kind is not None:
            candidates = [c for c in candidates if runs(self.kind, self.value(c).dtype)]
        if not candidates:
            return None
        return candidates[self.draw(st.integers(0, len(candidates) - 1))]

    def add_value(self, value: Value) -> None:
        self.values.append(value)

    def fresh_value(self, result: torch.Tensor, dtype: torch.dtype) -> Value:
        storage = torch.arange(result.untyped_storage().nbytes() // result.element_size())
        shadow = storage.as_strided(result.shape, result.stride(), result.storage_offset())
        return Value(shadow, f"fresh{next(self.fresh)}", dtype, "fresh")

    def view_value(self, base: Value, shadow: torch.Tensor, kind: str) -> Value:
        if shadow.untyped_storage().data_ptr() != base.shadow.untyped_storage().data_ptr():
            return self.fresh_value(shadow, base.dtype)  # reshape copied
        origin = "input" if base.origin == "input" else "intermediate"
        through = base.through | ({kind} & {"unfold", "as_strided"})
        overlapping = base.overlapping or internally_overlapping(shadow)
        return Value(shadow, base.storage, base.dtype, origin, overlapping, through)

    # -- drawing one Step

    def step(self, before_op: bool) -> None:
        kinds = [
            k
            for k in (_PRE_KINDS if before_op else _POST_KINDS)
            if self.kinds is None or k in self.kinds
        ]
        if not self.exact:
            kinds = [k for k in kinds if k not in _INEXACT_EXCLUDED]
        if not kinds:
            return
        kind = self.draw(st.sampled_from(kinds))
        self.kind = kind
        try:
            if kind in ("index_copy_", "setitem"):
                drawn = getattr(self, f"_{kind}")(before_op)
            elif kind in (*_VIEWS, *_READS):
                drawn = self._view_or_copy(kind, before_op)
            else:
                drawn = self._simple(kind, before_op)
        finally:
            self.kind = None
        if drawn is not None:
            self.steps.append(drawn)

    def _writable(self, before_op: bool, arithmetic: bool = False) -> list[int]:
        def ok(v: Value) -> bool:
            if not v.writable or v.dtype == torch.bool:
                return False
            if before_op and (not v.floating or v.origin != "input"):
                return False
            return not arithmetic or (self.exact and v.dtype in _EXACT_ARITHMETIC)

        return self.tensors(ok)

    def _overwritten(self, target: Value) -> dict[str, torch.Tensor]:
        """What the op produced that is left unwritten once ``target`` is overwritten."""
        covered = target.shadow.reshape(-1)
        return {
            storage: positions[~torch.isin(positions, covered)]
            if storage == target.storage
            else positions
            for storage, positions in self.unwritten.items()
        }

    def _overwrites_op(self, target: Value) -> bool:
        """Overwriting ``target`` would leave nothing of what the op produced
        to read, in any of its outputs (fill_ of one, copy_ into the other),
        so a compiler may rightly drop the op: no verdict."""
        left = self._overwritten(target)
        return bool(left) and all(positions.numel() == 0 for positions in left.values())

    def _write(self, kind: str, target: int, *params, operands=()) -> Step:
        self.written_through |= self.value(target).through
        return Step(kind, (target, *operands), params)

    def _simple(self, kind: str, before_op: bool) -> Step | None:
        role = STEPS[kind].role
        if role == "write":
            arithmetic = kind == "add_"
            target = self.pick(self._writable(before_op, arithmetic))
            if target is None:
                return None
            t = self.value(target)
            if kind in ("neg_", "scale_") and not t.floating:
                return None
            if kind in ("fill_", "copy_") and self._overwrites_op(t):
                return None
            if kind == "fill_":
                value = self.draw(st.sampled_from((0.0, -0.0, 1.5) if t.floating else (0, 7)))
                self.unwritten = self._overwritten(t)
                return self._write(kind, target, value)
            if kind in ("add_", "copy_"):
                partner = self.pick(
                    self.tensors(
                        lambda v: (
                            v.dtype == t.dtype
                            and v.shadow.shape == t.shadow.shape
                            and t.meets(v) != "partial"
                        )
                    )
                )
                if partner is None:
                    return None
                if kind == "copy_":
                    self.unwritten = self._overwritten(t)
                return self._write(kind, target, operands=(partner,))
            return self._write(kind, target)
        target = self.pick(self.tensors(lambda v: v.shadow.dim() > 0 and v.shadow.numel() > 0))
        if target is None:
            return None
        t = self.value(target)
        if kind == "clone":
            self.add_value(self.fresh_value(t.shadow.clone(), t.dtype))
            return Step(kind, (target,), (), 1)
        if kind == "double":  # exact in every dtype, and in the float64 program
            if t.dtype == torch.bool:
                return None
            self.add_value(self.fresh_value(t.shadow.clone(), t.dtype))
            return Step(kind, (target,), (), 1)
        if kind in ("add", "cat"):
            if kind == "add" and not (self.exact and t.dtype in _EXACT_ARITHMETIC):
                return None
            partner = self.pick(
                self.tensors(lambda v: v.dtype == t.dtype and v.shadow.shape == t.shadow.shape)
            )
            assert partner is not None  # t itself is one
            dim = self.draw(st.integers(0, t.shadow.dim() - 1))
            result = torch.cat([t.shadow, t.shadow], dim) if kind == "cat" else t.shadow.clone()
            self.add_value(self.fresh_value(result, t.dtype))
            return Step(kind, (target, partner), (dim,) if kind == "cat" else (), 1)
        return None

    def _dim(self, t: Value, least: int = 1) -> int | None:
        dims = [d for d in range(t.shadow.dim()) if t.shadow.shape[d] >= least]
        return None if not dims else self.draw(st.sampled_from(dims))

    def _view_or_copy(self, kind: str, before_op: bool) -> Step | None:
        target = self.pick(self.tensors(lambda v: v.shadow.dim() > 0 and v.shadow.numel() > 0))
        if target is None:
            return None
        t = self.value(target)
        shape = tuple(t.shadow.shape)
        d = self._dim(t)
        if d is None:
            return None
        size = shape[d]
        draw = self.draw
        params: tuple[Any, ...]
        if kind == "narrow":
            start = draw(st.integers(0, size - 1))
            params = (d, start, draw(st.integers(1, size - start)))
        elif kind == "select":  # from the end too, as model code reads x[-1]
            params = (d, draw(st.integers(-size, size - 1)))
        elif kind == "slice":
            start = draw(st.integers(0, size - 1))
            step = draw(st.integers(1, 3))
            end = draw(st.integers(start + 1, size))
            params = (d, start, end, step)
        elif kind in ("permute", "transpose"):
            if t.shadow.dim() < 2:
                return None
            if kind == "permute":
                params = (tuple(draw(st.permutations(range(t.shadow.dim())))),)
            else:
                other = draw(st.sampled_from([e for e in range(t.shadow.dim()) if e != d]))
                params = (d, other)
        elif kind in ("view", "reshape"):
            params = (_reshaped(shape, d, draw(st.booleans())),)
        elif kind == "unfold":
            window = draw(st.integers(1, size))
            params = (d, window, draw(st.integers(1, size)))
        elif kind == "expand":
            params = ((2, *shape),)
        elif kind == "as_strided":
            cut = list(shape)
            cut[d] = draw(st.integers(1, size))
            params = (tuple(cut), tuple(t.shadow.stride()), t.shadow.storage_offset())
        elif kind == "flip":
            params = ((d,),)
        elif kind == "roll":
            params = (draw(st.sampled_from((1, -1, 2))), d)
        elif kind == "index_select":
            params = (d, tuple(draw(st.lists(st.integers(0, size - 1), min_size=1, max_size=4))))
        else:
            raise AssertionError(kind)
        try:
            result = _apply(kind, t.shadow, params)
        except RuntimeError:  # not viewable as drawn: eager refuses it too
            return None
        if STEPS[kind].role == "view":
            self.add_value(self.view_value(t, result, kind))
        else:
            self.add_value(self.fresh_value(result, t.dtype))
        return Step(kind, (target,), params, 1)

    def _index_copy_(self, before_op: bool) -> Step | None:
        target = self.pick(self._writable(before_op))
        if target is None:
            return None
        t = self.value(target)
        d = self._dim(t)
        if d is None:
            return None
        size = t.shadow.shape[d]
        indices = st.integers(0, size - 1)
        positions = self.draw(st.lists(indices, min_size=1, max_size=4, unique=True))
        sources = self.draw(st.lists(indices, min_size=len(positions), max_size=len(positions)))
        return self._write("index_copy_", target, d, tuple(positions), tuple(sources))

    def _setitem(self, before_op: bool) -> Step | None:
        target = self.pick(self._writable(before_op))
        if target is None:
            return None
        t = self.value(target)
        if t.shadow.dim() == 0 or t.shadow.shape[0] < 2:
            return None
        i, j = self.draw(st.permutations(range(t.shadow.shape[0])))[:2]
        if overlap(t.shadow[i], t.shadow[j], True) == "partial":
            return None
        return self._write("setitem", target, i, j)

    # -- the op

    def op(self) -> None:
        """The op's Step; its outputs' geometry and aliasing from a real call.
        Where the op raises, the program is drawn without its outputs: the
        check's eager run of it raises too, and reports a crash Finding."""
        args = self.case.bind(self.case.allocate())
        try:
            raw = self.spec.resolve()(**args)
        except Exception:
            raw = None
        storages = {
            arg.untyped_storage().data_ptr(): self.case.args[name].buffer
            for name, arg in args.items()
            if isinstance(arg, torch.Tensor)
        }
        made: list[Value | None] = []
        for out in flatten_outputs(raw) or ():
            buffer = storages.get(out.untyped_storage().data_ptr()) if _tensor(out) else None
            if not _tensor(out):
                made.append(None)
            elif buffer is None:
                made.append(self.fresh_value(out, out.dtype))
            else:
                flat = torch.arange(_numel(self.case.buffers[buffer]))
                shadow = flat.as_strided(out.shape, out.stride(), out.storage_offset())
                made.append(Value(shadow, buffer, out.dtype, "input"))
        # Storage positions the op produced: its outputs, and what it writes.
        written = [
            self.value(self.inputs.index(n)) for n in self.spec.declared_writes if n in self.inputs
        ]
        self.unwritten = {}
        for value in [*filter(None, made), *written]:
            positions = value.shadow.reshape(-1)
            if value.storage in self.unwritten:
                positions = torch.cat([self.unwritten[value.storage], positions])
            self.unwritten[value.storage] = positions
        self.op_values = list(range(len(self.values), len(self.values) + len(made)))
        self.values += made
        sequence = ("sequence",) if isinstance(raw, (tuple, list)) else ()
        self.steps.append(Step("op", (), sequence, len(made)))

    def returns(self) -> tuple[int, ...]:
        """What the op produced, every value no later Step reads (so no Step
        is dead code a compiler may drop), and some other values."""
        produced = [i for i in self.op_values if self.values[i] is not None]
        if not produced:
            produced = [
                self.inputs.index(n) for n in sorted(self.spec.declared_writes) if n in self.inputs
            ]
        read = {i for step in self.steps for i in step.operands}
        leaves = [i for i in self.tensors() if i >= len(self.inputs) and i not in read]
        others = self.draw(st.lists(st.sampled_from(self.tensors()), max_size=2, unique=True))
        return tuple(dict.fromkeys([*produced, *leaves, *others]))


# Each kind of Step that computes, as a probe on a small tensor along
# dimension ``d``: eager torch has no kernel of some for some dtypes (``mul_``
# of float8, and ``flip`` of float8 along its last dimension only), and a Step
# it refuses is never drawn, or the op would be blamed for torch's refusal.
_INDEX = torch.tensor([1, 0])
_PROBES: dict[str, Any] = {
    "clone": lambda x, d: x.clone(),
    "flip": lambda x, d: x.flip((d,)),
    "roll": lambda x, d: x.roll(1, d),
    "index_select": lambda x, d: x.index_select(d, _INDEX),
    "cat": lambda x, d: torch.cat([x, x], d),
    "double": lambda x, d: x * 2,
    "add": lambda x, d: x + x,
    "add_": lambda x, d: x.add_(x.clone()),
    "mul_": lambda x, d: x.mul_(2),
    "scale_": lambda x, d: x.mul_(2),  # what the opaque op's kernel does
    "neg_": lambda x, d: x.neg_(),
    "fill_": lambda x, d: x.fill_(0),
    "copy_": lambda x, d: x.copy_(x.clone()),
    "index_copy_": lambda x, d: x.index_copy_(d, _INDEX[:1], x.index_select(d, _INDEX[1:])),
    "setitem": lambda x, d: x.__setitem__(1, x[0]),
}


@functools.cache
def runs(kind: str, dtype: torch.dtype) -> bool:
    """Eager torch runs a Step of ``kind`` on a tensor of ``dtype``, along any
    dimension of a 1-D or 2-D one (views run on any dtype)."""
    probe = _PROBES.get(kind)
    if probe is None:
        return True
    try:
        for shape, d in (((2,), 0), ((2, 2), 0), ((2, 2), 1)):
            probe(torch.zeros(shape, dtype=dtype), d)
    except (RuntimeError, NotImplementedError, TypeError):
        return False
    return True


def _tensor(value: object) -> bool:
    return isinstance(value, torch.Tensor)


def _numel(buffer) -> int:
    count = 1
    for size in buffer.shape:
        count *= size
    return count


def _reshaped(shape: tuple[int, ...], d: int, flatten: bool) -> tuple[int, ...]:
    """``shape`` flattened, or with dimension ``d`` split in two where it can be."""
    if flatten or shape[d] % 2:
        return (-1,)
    return (*shape[:d], 2, shape[d] // 2, *shape[d + 1 :])


def _apply(kind: str, tensor: torch.Tensor, params: tuple) -> torch.Tensor:
    """A view or copying Step on a shadow, as the program will run it."""
    view = STEPS[kind].view
    if view is not None:
        return view.make(tensor, *params)
    if kind == "index_select":
        return tensor.index_select(params[0], torch.tensor(params[1]))
    return getattr(tensor, kind)(*params)


_VIEWS = tuple(k for k, kind in STEPS.items() if kind.role == "view")
_READS = ("flip", "roll", "index_select")
# Around a spec judged against its float64 program, whose op is replaced by
# fresh contiguous tensors of the reference's values: no write (it would not
# reach the inputs an op's outputs alias there), and no view that depends on
# the real output's strides.
_INEXACT_EXCLUDED = frozenset(
    {"view", "as_strided", *(k for k, kind in STEPS.items() if kind.role == "write")}
)
_PRE_KINDS = (
    "mul_",
    "scale_",
    "copy_",
    "fill_",
    "neg_",
    "index_copy_",
    "setitem",
    "narrow",
    "select",
    "slice",
    "transpose",
)
_POST_KINDS = (
    "flip",
    "add_",
    "clone",
    "scale_",
    "copy_",
    "narrow",
    "select",
    "slice",
    "mul_",
    "roll",
    "index_select",
    "index_copy_",
    "setitem",
    "cat",
    "permute",
    "transpose",
    "view",
    "reshape",
    "add",
    "double",
    "neg_",
    "fill_",
    "unfold",
    "expand",
    "as_strided",
)


@st.composite
def programs(
    draw: st.DrawFn, spec: Spec, case: Case, kinds: tuple[str, ...] | None = None
) -> Program:
    """A legal program around ``spec``'s op on ``case``, of Steps of
    ``kinds`` only if given (STEPS names)."""
    builder = _Builder(draw, spec, case, kinds)
    for before_op in (True, False):
        limit = BEFORE if before_op else AFTER
        count = 0
        # Another Step three times in four; shrinking stops early.
        while count < limit and draw(st.integers(0, 3)) > 0:
            builder.step(before_op)
            count += 1
        if before_op:
            builder.op()
    returns = builder.returns()
    intermediate = frozenset(
        position for position, i in enumerate(returns) if builder.value(i).origin == "intermediate"
    )
    return Program(
        builder.inputs,
        tuple(builder.steps),
        returns,
        intermediate,
        draw(st.booleans()),
        frozenset(builder.written_through),
    )


@st.composite
def program_cases(
    draw: st.DrawFn, spec: Spec, kinds: tuple[str, ...] | None = None, backward: bool = True
) -> Case:
    """A Case of ``spec`` and a program drawn around its op (of Steps of
    ``kinds`` only, if given). For a spec with ``grads`` (and ``backward``),
    the program ends with a backward through the op half the time: the Case then carries its
    upstream gradients' layouts (none shrinks first). Its gradients are sums
    a compiled backward may add up in another order, judged against the
    float64 program's, so that program is drawn as around an inexact spec:
    it reads what the op made and writes nothing."""
    case = draw(spec.cases)
    if spec.inferred is not None and spec.inferred(case):
        # The program is drawn from a real call of the op: a Case the kernel
        # may refuse by dying is first run where it takes no worker with it.
        assume(kills(spec, case) is None)
    backward = backward and bool(spec.grads) and draw(st.booleans())
    around = dataclasses.replace(spec, bit_exact=False) if backward else spec
    case = dataclasses.replace(case, program=draw(programs(around, case, kinds)))
    return dataclasses.replace(case, tangents=draw(tangent_layouts())) if backward else case
