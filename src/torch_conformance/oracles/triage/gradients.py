"""Known faults of a compiled backward, matched by the gradients they predict.

A drawn program's backward (the programs check) that disagrees with eager is
a known fault only where eager, handed its upstream gradients as the fault
handles them (``laid_out_as_output``), computes the compiled gradients bit
for bit, and eager as it is does not.
"""

from __future__ import annotations

import torch

from torch_conformance.oracles.comparisons.values import bit_exact
from torch_conformance.oracles.core.findings import Finding
from torch_conformance.oracles.core.gradients import Backward
from torch_conformance.oracles.core.verdicts import VALUES
from torch_conformance.oracles.triage.faults import FAULTS

OVERLAPPING_OUTPUT_TANGENT = FAULTS["overlapping_output_tangent"]


def laid_out_as_output(output: torch.Tensor, gradient: torch.Tensor) -> torch.Tensor:
    """The upstream gradient as the fault hands it on: copied into a tensor
    laid out as its output, where elements that share memory keep the last
    value copied."""
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
    found: list[Finding], wrt: list[str], compiled: Backward, eager: Backward, predicted: Backward
) -> list[Finding]:
    """``found``, the compiled backward's Findings, with those the known
    fault explains demoted to reports of it: ``predicted`` is eager's run
    with its upstream gradients ``laid_out_as_output``."""
    values = [f for f in found if f.blocking and f.verdict == VALUES]
    if not values or any(run.error is not None for run in (compiled, eager, predicted)):
        return found
    if not _same(compiled, predicted, wrt) or _same(predicted, eager, wrt):
        return found
    shown = (
        "eager computes the compiled gradients bit for bit once each upstream gradient "
        "is copied into a tensor laid out as its output"
    )
    fault = OVERLAPPING_OUTPUT_TANGENT
    return [fault.explain(f, shown) if f in values else f for f in found]
