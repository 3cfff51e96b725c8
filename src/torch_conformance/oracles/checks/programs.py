"""The programs check: a program drawn around the op (``case.program``),
compiled in a compiled Mode, agrees with it run eagerly: the values of its
outputs and of every buffer after it, input-output aliasing, significant
strides. A compiler's refusal of a write through an unfold or as_strided
view is an expected error; a disagreement that known compiler faults
explain, on evidence specific to each, does not block."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable

from torch_conformance.oracles.core.buffers import Case
from torch_conformance.oracles.core.findings import ConformanceFailure, Finding, error_text
from torch_conformance.oracles.core.program import Program
from torch_conformance.oracles.core.signature import BatchSignature
from torch_conformance.oracles.core.specification import Spec
from torch_conformance.oracles.core.verdicts import (
    COMPILED,
    EXPECTED_REFUSAL,
    INTERMEDIATE_STRIDES,
    PROGRAM,
    VALUES,
)
from torch_conformance.oracles.judging.check import Check
from torch_conformance.oracles.judging.common_findings import uncompilable
from torch_conformance.oracles.judging.differential import GIVEN, CompiledEvidence, compare_compiled
from torch_conformance.oracles.judging.differential_script import DIFFERENTIAL_SCRIPT
from torch_conformance.oracles.judging.gradient_runs import compiled_backward, eager_backward
from torch_conformance.oracles.judging.gradient_verdicts import judged_backward
from torch_conformance.oracles.modes.compiled import COMPILED as COMPILED_MODES
from torch_conformance.oracles.modes.compiled import INDUCTOR, Compiled
from torch_conformance.oracles.modes.mode import Mode
from torch_conformance.oracles.strategies.legality import expected_refusal
from torch_conformance.oracles.strategies.programs import program_cases
from torch_conformance.oracles.strategies.shrink import minimize
from torch_conformance.oracles.triage import faults
from torch_conformance.oracles.triage.engine import Situation, triage
from torch_conformance.oracles.triage.gradients import (
    OVERLAPPING_OUTPUT_TANGENT,
    explained_backward,
    laid_out_as_output,
)


def _drawn(case: Case) -> Program:
    assert case.program is not None, "the programs check judges Cases with a drawn program"
    return case.program


def check_programs(
    spec: Spec, case: Case, batch: BatchSignature | None = None, mode: Mode = INDUCTOR
) -> list[Finding]:
    """The drawn program compiled in ``mode`` agrees with it run eagerly."""
    assert isinstance(mode, Compiled)
    program = _drawn(case)
    writes = program.writes or bool(spec.declared_writes)
    situation = Situation(
        case, program.dynamic, writes, program.kinds(), program.written_through, mode.deploy
    )
    found = untriaged(spec, case, mode)
    runs = CompiledEvidence(spec, case, None, mode, program.dynamic, program.intermediate)
    found = triage(found, situation, runs, faults.KNOWN_FAULTS)
    if found or not case.tangents or not spec.grads:
        return found
    found = [_after_backward(f) for f in judged_backward(spec, case, mode, summed=True)]
    return _triaged_backward(spec, case, mode, found)


def _triaged_backward(
    spec: Spec, case: Case, mode: Compiled, found: list[Finding]
) -> list[Finding]:
    """The backward's Findings, triaged: where a known fault of the backward
    affects this release and a value disagrees, the runs its evidence needs."""
    if not OVERLAPPING_OUTPUT_TANGENT.affects() or not any(
        f.blocking and f.verdict == VALUES for f in found
    ):
        return found
    compiled, _, _ = compiled_backward(spec, case, mode)  # compiled already: no compile
    wrt, predicted, _ = eager_backward(spec, case, laid_out_as_output)
    _, eager, _ = eager_backward(spec, case)
    return explained_backward(found, wrt, compiled, eager, predicted)


# What begins a Finding of the backward a drawn program ends with.
BACKWARD = "after the program, its backward: "


def _after_backward(finding: Finding) -> Finding:
    """A Finding of the program's backward."""
    return dataclasses.replace(finding, message=BACKWARD + finding.message)


def untriaged(spec: Spec, case: Case, mode: Compiled) -> list[Finding]:
    """The programs check's Findings before known-fault triage."""
    program = _drawn(case)
    found = compare_compiled(
        spec, case, mode, dynamic=program.dynamic, intermediate=program.intermediate
    )
    return [_refused(program, mode, f) or f for f in found]


def _refused(program: Program, mode: Compiled, finding: Finding) -> Finding | None:
    """``finding``, if it is the compiler's expected refusal, as a note."""
    if finding.verdict != COMPILED or finding.error is None:
        return None
    kind = expected_refusal(program.written_through, finding.error)
    if kind is None:
        return None
    return Finding(
        EXPECTED_REFUSAL,
        f"{mode.name} refuses to compile a write through an {kind} view, as it does by "
        f"design: {error_text(finding.error, 1)}",
        blocking=False,
    )


def _cut_down(spec: Spec, mode: Mode, failure: ConformanceFailure) -> list[Finding]:
    """The shrunk program cut down further by deleting Steps, its Findings,
    and the key that tells distinct bugs apart. A cut-down program fails
    alike only where triage leaves it blocking: deleting a Step can leave a
    program that a known fault explains, which would report a known fault
    as the new bug."""
    assert isinstance(mode, Compiled)
    case = failure.cases[failure.index]
    symptom = _symptom(failure.findings)

    def fails(program: Program) -> bool:
        found = check_programs(spec, dataclasses.replace(case, program=program), None, mode)
        return _symptom(found) == symptom

    program = minimize(_drawn(case), fails)
    findings = failure.findings
    if program != case.program:
        case = dataclasses.replace(case, program=program)
        cases = list(failure.cases)
        cases[failure.index] = case
        failure.cases = tuple(cases)
        findings = check_programs(spec, case, None, mode)
    return [*findings, program_finding(failure.findings, mode, program)]


def program_finding(findings: Iterable[Finding], mode: Mode, program: Program) -> Finding:
    """The note that names a cut-down program's distinct bug and prints it.
    Cutting down may leave the op's outputs unused: then the bug is in the
    code around the op (unless the op writes its arguments), which the note
    says, since a reader would otherwise blame the op."""
    around = (
        ""
        if program.returns_the_ops_outputs()
        else ", in which none of the op's outputs reaches what it returns: unless the op "
        "writes its arguments, the fault is in the code around the op"
    )
    steps = f"{len(program)} step{'s' if len(program) != 1 else ''}"
    return Finding(
        PROGRAM,
        f"distinct bug {bug_key(findings, mode, program)}; the program ({steps}){around}:\n"
        + program.source(),
        blocking=False,
    )


def _symptom(findings: Iterable[Finding]) -> set[tuple[str, bool]]:
    """The blocking verdicts, each with whether the program's backward gave it."""
    return {(f.verdict, f.message.startswith(BACKWARD)) for f in findings if f.blocking}


def bug_key(findings: Iterable[Finding], mode: Mode, program: Program) -> str:
    """What tells two failing programs apart as bugs: the symptom (blocking
    verdicts), the Mode, static or dynamic, and the kinds of Step left."""
    blocking = [f for f in findings if f.blocking]
    symptom = "+".join(sorted({f.verdict for f in blocking})) or "none"
    if any(f.message.startswith(BACKWARD) for f in blocking):
        symptom += " in the backward"
    shapes = "dynamic" if program.dynamic else "static"
    return f"{symptom}/{mode.name}/{shapes}/{','.join(program.kinds())}"


def _script_check(findings: Iterable[Finding]) -> str | None:
    """A failure of a program's backward is reproduced by the compiled
    backward check's script, around the same program."""
    if any(f.blocking and f.message.startswith(BACKWARD) for f in findings):
        return "compiled_backward"
    return None


CHECK = Check(
    check_programs,
    "programs drawn around the op, eagerly and compiled",
    (*GIVEN, INTERMEDIATE_STRIDES, EXPECTED_REFUSAL, PROGRAM),
    order=4,
    modes=tuple(COMPILED_MODES.values()),
    finish=_cut_down,
    cases=program_cases,
    # A drawn program's script is the compiled check's, around that program.
    script=DIFFERENTIAL_SCRIPT,
    script_check=_script_check,
    unfit=uncompilable,
)
