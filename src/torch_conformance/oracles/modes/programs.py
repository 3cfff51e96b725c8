"""The code around the op that a Mode runs: the spec's program, or the
Program a check drew for the Case, as a Python function."""

from __future__ import annotations

import functools
import linecache
from collections.abc import Callable
from typing import Any

import torch

from torch_conformance.oracles.core.buffers import Case
from torch_conformance.oracles.core.calls import call_op
from torch_conformance.oracles.core.program import Program
from torch_conformance.oracles.core.specification import Spec
from torch_conformance.oracles.modes.scale_op import scale_


def around(spec: Spec, case: Case) -> Callable[..., Any]:
    """``program(op, **args)`` for ``case``: the Program drawn for it, else the spec's."""
    return spec.program if case.program is None else program_function(case.program)


@functools.cache
def program_function(program: Program) -> Callable[..., Any]:
    """The Program's text, compiled into a function whose source ``inspect``
    finds (the repro writer copies it from there); one function per Program,
    so compiled programs keyed by it are shared."""
    text = program.source()
    filename = f"<program {abs(hash(program)):x}>"
    linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
    scope = {
        "torch": torch,
        "call_op": call_op,
        "scale_": scale_,
        "as_strided_over_a_copy": as_strided_over_a_copy,
    }
    exec(compile(text, filename, "exec"), scope)  # noqa: S102 - the program is our own text
    function: Callable[..., Any] = scope["program"]  # type: ignore[assignment]
    return function


def as_strided_over_a_copy(
    source: torch.Tensor, size: tuple[int, ...], stride: tuple[int, ...], offset: int
) -> torch.Tensor:
    """``source.as_strided(size, stride, offset)`` made over a fresh copy of
    ``source`` (laid out as ``clone`` lays it out, from offset 0) instead of
    ``source``'s storage, even where it then reaches past the copy's end: a
    known fault's answer (see ``oracles.triage.predictions``), whose elements
    past the end no comparison reads."""
    copy = source.clone()
    held = copy.numel()
    reach = offset + 1 + sum((n - 1) * s for n, s in zip(size, stride, strict=True))
    if reach <= held:
        return copy.as_strided(size, stride, offset)
    wider = copy.new_empty(reach)
    wider[:held] = copy.as_strided((held,), (1,), 0)  # in the copy's storage order
    view = wider.as_strided(size, stride, offset)
    wider.untyped_storage().resize_(held * copy.element_size())
    return view


def of_buffers(spec: Spec, case: Case) -> tuple[list[str], Callable[..., Any]]:
    """The Case's program as a function of its buffers, in a fixed order."""
    names = sorted(case.buffers)
    op = spec.resolve()
    program = around(spec, case)

    def run(*tensors: torch.Tensor) -> Any:
        args = case.bind(dict(zip(names, tensors, strict=True)))
        return program(op, **args)

    return names, run
