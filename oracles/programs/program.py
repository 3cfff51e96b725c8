"""A Program: straight-line model code around one call of a spec's op, as data.

A Program is a tuple of Steps over numbered values: the op's tensor
arguments first, then every value a Step makes. It is rendered as plain
Python (one statement per Step) and that text is what runs, eagerly and
compiled, what a failure prints and what a repro script holds: there is no
second interpreter to disagree with it.
"""

from __future__ import annotations

import dataclasses
import functools
import linecache
from collections.abc import Callable
from typing import Any

import torch

from oracles.programs.ops import scale_
from oracles.spec import call_op


@dataclasses.dataclass(frozen=True)
class StepKind:
    """What a kind of Step does: ``role`` is ``view`` (a new value sharing its
    operand's storage), ``fresh`` (a new tensor), ``write`` (an in-place update
    of its first operand, no new value) or ``op`` (the spec's op);
    ``template`` renders it from its operands' names ``{0}``, ``{1}`` and its
    parameters ``{p0}``, ``{p1}``."""

    role: str
    template: str


class Code(str):
    """A Step parameter that is rendered as it is (an index expression)."""

    def __repr__(self) -> str:
        return str(self)


STEPS: dict[str, StepKind] = {
    # views
    "narrow": StepKind("view", "{0}.narrow({p0}, {p1}, {p2})"),
    "select": StepKind("view", "{0}.select({p0}, {p1})"),
    "slice": StepKind("view", "{0}[{p0}]"),  # p0: the rendered index
    "permute": StepKind("view", "{0}.permute({p0})"),
    "transpose": StepKind("view", "{0}.transpose({p0}, {p1})"),
    "view": StepKind("view", "{0}.view({p0})"),
    "reshape": StepKind("view", "{0}.reshape({p0})"),  # a view or a copy, as eager decides
    "unfold": StepKind("view", "{0}.unfold({p0}, {p1}, {p2})"),
    "expand": StepKind("view", "{0}.expand({p0})"),
    "as_strided": StepKind("view", "{0}.as_strided({p0}, {p1}, {p2})"),
    # fresh tensors (data movement, and exact arithmetic)
    "clone": StepKind("fresh", "{0}.clone()"),
    "flip": StepKind("fresh", "{0}.flip({p0})"),
    "roll": StepKind("fresh", "{0}.roll({p0}, {p1})"),
    "index_select": StepKind("fresh", "{0}.index_select({p0}, torch.tensor({p1}))"),
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
    ),
    "setitem": StepKind("write", "{0}[{p0}] = {0}[{p1}]"),
    "scale_": StepKind("write", "scale_({0})"),  # a second, opaque mutating custom op
    # the spec's op, on its arguments as the Case made them
    "op": StepKind("op", "call_op(op, **args)"),
}


@dataclasses.dataclass(frozen=True)
class Step:
    """One statement: ``kind`` (a STEPS name) applied to ``operands`` (value
    numbers) with ``params``; ``outputs`` is how many values it makes (the op
    step's params are ``("sequence",)`` when the op returns a sequence)."""

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
        """Every value's name, in order."""
        names = list(self.inputs)
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
            text = kind.template.format(
                *(names[i] for i in step.operands),
                **{f"p{i}": _literal(p) for i, p in enumerate(step.params) if kind.role != "op"},
            )
            if step.outputs == 1 and step.params != ("sequence",):
                text = f"{names[made]} = {text}"
            elif step.outputs:
                text = f"{', '.join(names[made : made + step.outputs])}, = {text}"
            made += step.outputs
            lines.append(text)
        return lines

    def source(self, name: str = "program") -> str:
        """The program as a Python function ``name(op, **args)``."""
        unpack = [f"{n} = args[{n!r}]" for n in self.inputs]
        returned = ", ".join(self.names()[i] for i in self.returns)
        body = [*unpack, *self.lines(), f"return ({returned},)"]
        return f"def {name}(op, **args):\n" + "".join(f"    {line}\n" for line in body)

    def kinds(self) -> tuple[str, ...]:
        """The kinds of its Steps, sorted, each once: what a Finding is keyed by."""
        return tuple(sorted({step.kind for step in self.steps}))

    @property
    def writes(self) -> bool:
        return any(STEPS[s.kind].role == "write" for s in self.steps)

    def function(self) -> Callable[..., Any]:
        """The program as a Python function ``program(op, **args)``, made of
        its source (one function per Program: compiled programs are keyed by it)."""
        return _function(self)

    def __len__(self) -> int:
        return len(self.steps)


def _literal(value: Any) -> str:
    if isinstance(value, float) and value == 0:
        return "-0.0" if str(value).startswith("-") else "0.0"
    return repr(value)


@functools.cache
def _function(program: Program) -> Callable[..., Any]:
    """The program's text, compiled into a function whose source
    ``inspect`` finds (the repro writer copies it from there)."""
    text = program.source()
    filename = f"<program {abs(hash(program)):x}>"
    linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
    scope = {"torch": torch, "call_op": call_op, "scale_": scale_}
    exec(compile(text, filename, "exec"), scope)  # noqa: S102 - the program is our own text
    function = scope["program"]
    function.program = program  # what the repro writer copies
    return function
