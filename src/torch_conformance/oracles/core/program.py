"""A Program: straight-line model code around one call of a spec's op, as data.

A Program is a tuple of Steps over numbered values: the op's tensor
arguments first, then every value a Step makes. It is rendered as plain
Python (one statement per Step) and that text is what runs, eagerly and
compiled, what a failure prints and what a repro script holds: there is no
second interpreter to disagree with it.
"""

from __future__ import annotations

import dataclasses
import keyword
import re
from typing import Any

from torch_conformance.oracles.core.views import VIEW_OPS, ViewKind


@dataclasses.dataclass(frozen=True)
class StepKind:
    """What a kind of Step does: ``role`` is ``view`` (a new value sharing its
    operand's storage), ``fresh`` (a new tensor), ``write`` (an in-place update
    of its first operand, no new value) or ``op`` (the spec's op);
    ``template`` renders it from its operands' names ``{0}``, ``{1}`` and its
    parameters ``{p0}``, ``{p1}``, or a view Step is written as its ``view``
    operation is; ``reads_elsewhere``: it reads its operand at other positions
    than it writes."""

    role: str
    template: str = ""
    view: ViewKind | None = None
    reads_elsewhere: bool = False


def _view(name: str) -> StepKind:
    return StepKind("view", view=VIEW_OPS[name])


STEPS: dict[str, StepKind] = {
    # views, the operations Cases make (see torch_conformance.oracles.core.views)
    **{
        name: _view(name)
        for name in (
            "narrow",
            "select",
            "slice",
            "permute",
            "transpose",
            "view",
            "unfold",
            "expand",
            "as_strided",
        )
    },
    "reshape": StepKind("view", "{0}.reshape({p0})"),  # a view or a copy, as eager decides
    # fresh tensors (data movement, and exact arithmetic)
    "clone": StepKind("fresh", "{0}.clone()"),
    "flip": StepKind("fresh", "{0}.flip({p0})", reads_elsewhere=True),
    "roll": StepKind("fresh", "{0}.roll({p0}, {p1})", reads_elsewhere=True),
    "index_select": StepKind(
        "fresh", "{0}.index_select({p0}, torch.tensor({p1}))", reads_elsewhere=True
    ),
    "cat": StepKind("fresh", "torch.cat([{0}, {1}], {p0})"),
    "double": StepKind("fresh", "{0} * 2"),
    "add": StepKind("fresh", "{0} + {1}"),
    # in-place updates of the first operand
    "add_": StepKind("write", "{0}.add_({1})"),
    "mul_": StepKind("write", "{0}.mul_(2)"),
    "neg_": StepKind("write", "{0}.neg_()"),
    "fill_": StepKind("write", "{0}.fill_({p0})"),
    "copy_": StepKind("write", "{0}.copy_({1})"),
    # the source: other positions of the target itself, read first
    "index_copy_": StepKind(
        "write",
        "{0}.index_copy_({p0}, torch.tensor({p1}), {0}.index_select({p0}, torch.tensor({p2})))",
        reads_elsewhere=True,
    ),
    "setitem": StepKind("write", "{0}[{p0}] = {0}[{p1}]", reads_elsewhere=True),
    "scale_": StepKind("write", "scale_({0})"),  # a second, opaque mutating custom op
    # the spec's op, on its arguments as the Case made them
    "op": StepKind("op", "call_op(op, **args)"),
    # Never drawn: the Steps with which a known fault's prediction rewrites a
    # program (torch_conformance.oracles.triage.predictions), to run what the fault computes.
    "unfold_inverse": StepKind(
        "write", "{0}.copy_(torch.ops.aten.unfold_backward({1}, {0}.shape, {p0}, {p1}, {p2}))"
    ),
    "contiguous": StepKind("fresh", "{0}.contiguous()"),
    # torch.cat([{0}, {0}], p0) as Inductor's decomposition computes it
    "repeated_cat": StepKind(
        "fresh",
        "{0}.unsqueeze({p0}).expand(*{0}.shape[:{p0}], 2, *{0}.shape[{p0}:])"
        ".flatten({p0}, {p0} + 1).clone()",
    ),
    # as_strided (p0 to p2: size, stride, offset) over a copy (a clone) of the operand
    "as_strided_over_a_copy": StepKind("fresh", "as_strided_over_a_copy({0}, {p0}, {p1}, {p2})"),
    "op_on": StepKind("op", "call_op(op, **{{**args, {p0}: {0}}})"),  # one argument replaced
    "scale_at_offset_0": StepKind("write", "scale_({0}.as_strided({0}.size(), {0}.stride(), 0))"),
    # the storage under a view, from offset 0, laid out contiguously in its shape
    "contiguous_at_offset_0": StepKind(
        "view", "{0}.as_strided({0}.size(), {0}.new_empty({0}.size()).stride(), 0)"
    ),
    # the op with the arguments named in p0 rebased to storage offset 0
    "op_at_offset_0": StepKind(
        "op",
        "call_op(op, **{{**args, **{{n: args[n].as_strided(args[n].size(), args[n].stride(), 0) "
        "for n in {p0}}}}})",
    ),
}


@dataclasses.dataclass(frozen=True)
class Step:
    """One statement: ``kind`` (a STEPS name) applied to ``operands`` (value
    numbers) with ``params``; ``outputs`` is how many values it makes (the op
    step's params end in ``"sequence"`` when the op returns a sequence)."""

    kind: str
    operands: tuple[int, ...] = ()
    params: tuple[Any, ...] = ()
    outputs: int = 0


@dataclasses.dataclass(frozen=True)
class Program:
    """Steps around the op. ``inputs`` names the op's tensor arguments (values
    0, 1, ...); ``returns`` numbers the values the program returns;
    ``intermediate`` numbers those of them that are views of tensors the
    program made (their strides are not significant: see the check)."""

    inputs: tuple[str, ...]
    steps: tuple[Step, ...]
    returns: tuple[int, ...]
    intermediate: frozenset[int] = frozenset()
    dynamic: bool = False  # compiled with dynamic shapes
    written_through: frozenset[str] = frozenset()  # unfold/as_strided views written through

    def names(self) -> list[str]:
        """Every value's name, in order: an input's is its argument's, where
        that names nothing the program's text uses (``op``, ``args``, ``v0``,
        ``torch``, a keyword), else the argument's with ``_`` after it."""
        names = [_local(name) for name in self.inputs]
        for step in self.steps:
            names += [f"v{len(names) + i}" for i in range(step.outputs)]
        return names

    def lines(self) -> list[str]:
        """The body, one statement per Step."""
        names = self.names()
        made = len(self.inputs)
        lines = []
        for step in self.steps:
            kind = STEPS[step.kind]
            operands = [names[i] for i in step.operands]
            sequence = step.params[-1:] == ("sequence",)
            if kind.view is not None:
                text = kind.view.expression(operands[0], step.params, _literal, None)
            else:
                params = step.params[:-1] if sequence else step.params
                text = kind.template.format(
                    *operands, **{f"p{i}": _literal(p) for i, p in enumerate(params)}
                )
            if step.outputs == 1 and not sequence:
                text = f"{names[made]} = {text}"
            elif step.outputs:
                text = f"{', '.join(names[made : made + step.outputs])}, = {text}"
            made += step.outputs
            lines.append(text)
        return lines

    def source(self, name: str = "program") -> str:
        """The program as a Python function ``name(op, **args)``."""
        unpack = [
            f"{local} = args[{n!r}]" for n, local in zip(self.inputs, self.names(), strict=False)
        ]
        returned = "".join(f"{self.names()[i]}, " for i in self.returns).rstrip()
        body = [*unpack, *self.lines(), f"return ({returned})"]
        return f"def {name}(op, /, **args):\n" + "".join(f"    {line}\n" for line in body)

    def producers(self) -> dict[int, int]:
        """The position of the Step that makes each value a Step makes."""
        made, found = len(self.inputs), {}
        for position, step in enumerate(self.steps):
            for value in range(made, made + step.outputs):
                found[value] = position
            made += step.outputs
        return found

    def inserted(self, position: int, step: Step) -> Program:
        """This program with ``step`` before Step ``position``: the values
        made from there on are numbered after the ones ``step`` makes."""
        first = len(self.inputs) + sum(s.outputs for s in self.steps[:position])

        def moved(value: int) -> int:
            return value + step.outputs if value >= first else value

        steps = [dataclasses.replace(s, operands=tuple(map(moved, s.operands))) for s in self.steps]
        steps.insert(position, step)
        return dataclasses.replace(
            self,
            steps=tuple(steps),
            returns=tuple(map(moved, self.returns)),
            intermediate=frozenset(map(moved, self.intermediate)),
        )

    def returns_the_ops_outputs(self) -> bool:
        """Something the op returned reaches what the program returns: through
        the Steps that read it, or a write that reads it (which may change a
        returned value through a view, so it counts as reaching)."""
        made = len(self.inputs)
        reached: set[int] = set()
        for step in self.steps:
            role = STEPS[step.kind].role
            if role == "op":
                reached.update(range(made, made + step.outputs))
            elif reached.intersection(step.operands):
                if role == "write":
                    return True
                reached.update(range(made, made + step.outputs))
            made += step.outputs
        return bool(reached.intersection(self.returns))

    def kinds(self) -> tuple[str, ...]:
        """The kinds of its Steps, sorted, each once: what a Finding is keyed by."""
        return tuple(sorted({step.kind for step in self.steps}))

    @property
    def writes(self) -> bool:
        return any(STEPS[s.kind].role == "write" for s in self.steps)

    def __len__(self) -> int:
        return len(self.steps)


# What a program's text names besides its values (``modes.programs``'s scope).
_TAKEN = {"op", "args", "torch", "call_op", "scale_", "as_strided_over_a_copy", "program"}


def _local(name: str) -> str:
    """A value name for argument ``name`` that shadows nothing the text uses."""
    while name in _TAKEN or keyword.iskeyword(name) or re.fullmatch(r"v\d+", name):
        name += "_"
    return name


def _literal(value: Any) -> str:
    if isinstance(value, float) and value == 0:
        return "-0.0" if str(value).startswith("-") else "0.0"
    return repr(value)
