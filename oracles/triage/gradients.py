"""Known faults of a compiled backward, matched by the gradients they predict.

A drawn program's backward (the programs check) that disagrees with eager is
a known fault only where eager, handed its upstream gradients as the fault
handles them, computes the compiled gradients bit for bit, and eager as it
is does not.
"""

from __future__ import annotations

import torch

from oracles.checks.gradient_runs import compiled_backward, eager_backward
from oracles.comparisons.values import bit_exact
from oracles.core.case import Case
from oracles.core.findings import Finding
from oracles.core.gradients import Backward
from oracles.core.spec import Spec
from oracles.core.verdicts import VALUES
from oracles.modes.compiled import Compiled
from oracles.triage.faults import FAULTS

OVERLAPPING_OUTPUT_TANGENT = FAULTS["overlapping_output_tangent"]


def _laid_out_as_output(output: torch.Tensor, gradient: torch.Tensor) -> torch.Tensor:
    """The upstream gradient copied into a tensor laid out as its output:
    where the output's elements share memory, the last value copied wins."""
    laid_out = torch.empty_strided(output.shape, output.stride(), dtype=gradient.dtype)
    return laid_out.copy_(gradient)


def _same(a: Backward, b: Backward, wrt: list[str]) -> bool:
    """Every gradient of ``a`` equals ``b``'s bit for bit."""
    for name in wrt:
        x, y = a.grads[name], b.grads[name]
        if (x is None) != (y is None):
            return False
        if x is not None and y is not None and bit_exact(name, x, y, "a", "b"):
            return False
    return True


def explained_backward(
    spec: Spec, case: Case, mode: Compiled, found: list[Finding]
) -> list[Finding]:
    """``found``, the compiled backward's Findings on ``case``, with those a
    known fault of the backward explains demoted to reports of it."""
    values = [f for f in found if f.blocking and f.verdict == VALUES]
    fault = OVERLAPPING_OUTPUT_TANGENT
    if not values or not fault.affects():
        return found
    compiled, _ = compiled_backward(spec, case, mode)  # compiled already: no compile
    wrt, predicted, _ = eager_backward(spec, case, _laid_out_as_output)
    _, eager, _ = eager_backward(spec, case)
    if compiled.error is not None or predicted.error is not None or eager.error is not None:
        return found
    if not _same(compiled, predicted, wrt) or _same(predicted, eager, wrt):
        return found
    shown = (
        "eager computes the compiled gradients bit for bit once each upstream gradient "
        "is copied into a tensor laid out as its output"
    )
    return [fault.explain(f, shown) if f in values else f for f in found]
