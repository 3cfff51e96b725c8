"""The compiled backward check: the program compiled in a compiled Mode, and
differentiated through the backward that compile made (AOTAutograd's joint
graph, partitioned, compiled), gives the eager gradients: bit for bit, or
for a spec judged by ULP budget within it of the float64 gradients; with
eager's shapes, strides and offsets either way."""

from __future__ import annotations

from torch_conformance.oracles.core.buffers import Case
from torch_conformance.oracles.core.findings import ConformanceFailure, Finding
from torch_conformance.oracles.core.signature import BatchSignature
from torch_conformance.oracles.core.specification import Spec
from torch_conformance.oracles.core.verdicts import (
    AUTOGRAD,
    COMPILED,
    FAKE,
    HARNESS,
    METADATA,
    OUT_ARGUMENT,
    OUTPUTS,
    SIZE_1_STRIDES,
    STAGE,
    VALUES,
)
from torch_conformance.oracles.judging.check import Check
from torch_conformance.oracles.judging.common_findings import uncompilable
from torch_conformance.oracles.judging.gradient_scripts import COMPILED_SCRIPT
from torch_conformance.oracles.judging.gradient_verdicts import check_backward, judged_backward
from torch_conformance.oracles.modes.compiled import COMPILED as COMPILED_MODES
from torch_conformance.oracles.modes.compiled import Compiled
from torch_conformance.oracles.modes.mode import Mode
from torch_conformance.oracles.strategies.tangents import tangent_cases, tangent_examples
from torch_conformance.oracles.triage.stage import stage_at_fault


def check_compiled_backward(
    spec: Spec, case: Case, batch: BatchSignature | None, mode: Mode
) -> list[Finding]:
    """The compiled program's gradients agree with eager's."""
    return judged_backward(spec, case, mode, summed=False)


def _stage(spec: Spec, mode: Mode, failure: ConformanceFailure) -> list[Finding]:
    """The failing Case's stage at fault: its forward and backward compiled
    again by each stage before ``mode`` (Dynamo alone leaves the backward to
    eager autograd over its graph; AOTAutograd compiles the backward, as
    Inductor does), then with Inductor's passes off in turn."""
    assert isinstance(mode, Compiled)
    case = failure.cases[failure.index]

    def compare(stage: Compiled) -> list[Finding]:
        return check_compiled_backward(spec, case, None, stage)

    return [*failure.findings, stage_at_fault(spec, mode, compare, check_backward(spec, case))]


CHECK = Check(
    check_compiled_backward,
    "the program compiled and differentiated, against eager's gradients",
    (
        VALUES,
        METADATA,
        SIZE_1_STRIDES,
        OUTPUTS,
        COMPILED,
        FAKE,
        OUT_ARGUMENT,
        AUTOGRAD,
        HARNESS,
        STAGE,
    ),
    order=3,
    modes=tuple(mode for mode in COMPILED_MODES.values() if not mode.deploy),
    finish=_stage,
    applies=lambda spec: bool(spec.grads),
    cases=tangent_cases,
    examples=tangent_examples,
    script=COMPILED_SCRIPT,
    unfit=uncompilable,
)
