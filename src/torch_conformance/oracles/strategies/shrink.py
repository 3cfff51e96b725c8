"""Deleting Steps from a failing program while it still fails the same way.

Hypothesis shrinks a program through its choices, which re-draws the Steps
after a deleted one; this pass deletes Steps directly (with the Steps that
read what they made), one compile per try, as a person cuts a repro down.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from torch_conformance.oracles.core.program import Program, Step


def without(program: Program, index: int) -> Program | None:
    """``program`` without its Step ``index`` and the Steps that read what it
    made; None if that leaves nothing to return (the op's Step stays)."""
    if program.steps[index].kind == "op":
        return None
    gone: set[int] = set()
    kept: list[Step] = []
    number = len(program.inputs)
    renumber = {i: i for i in range(number)}
    fresh = number
    for position, step in enumerate(program.steps):
        made = range(number, number + step.outputs)
        number += step.outputs
        if position == index or gone.intersection(step.operands):
            gone.update(made)
            continue
        for value in made:
            renumber[value] = fresh
            fresh += 1
        kept.append(dataclasses.replace(step, operands=tuple(renumber[i] for i in step.operands)))
    returns = [(at, renumber[i]) for at, i in enumerate(program.returns) if i not in gone]
    if not returns:
        return None
    intermediate = frozenset(
        new for new, (at, _) in enumerate(returns) if at in program.intermediate
    )
    return dataclasses.replace(
        program,
        steps=tuple(kept),
        returns=tuple(i for _, i in returns),
        intermediate=intermediate,
    )


def returning_less(program: Program, position: int) -> Program | None:
    """``program`` without its return number ``position`` (None: its last)."""
    if len(program.returns) == 1:
        return None
    returns = program.returns[:position] + program.returns[position + 1 :]
    intermediate = frozenset(at - (at > position) for at in program.intermediate if at != position)
    return dataclasses.replace(program, returns=returns, intermediate=intermediate)


def minimize(program: Program, fails: Callable[[Program], bool]) -> Program:
    """The smallest program reached by deleting Steps (last first) and
    returns while ``fails`` holds."""
    changed = True
    while changed:
        changed = False
        for cut, count in ((without, len(program.steps)), (returning_less, len(program.returns))):
            for index in reversed(range(count)):
                smaller = cut(program, index) if index < _size(cut, program) else None
                if smaller is not None and fails(smaller):
                    program, changed = smaller, True
    return program


def _size(cut: Callable, program: Program) -> int:
    return len(program.steps) if cut is without else len(program.returns)
