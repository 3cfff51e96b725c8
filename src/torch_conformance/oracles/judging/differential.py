"""The Case's program eagerly and compiled, compared: what the compiled and
programs checks judge, and what triage and the stage at fault run again."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from torch_conformance.oracles.comparisons.against_eager import against_eager
from torch_conformance.oracles.comparisons.expected import program_expectation
from torch_conformance.oracles.core.buffers import Case, View
from torch_conformance.oracles.core.findings import Finding, error_text
from torch_conformance.oracles.core.observation import Observation
from torch_conformance.oracles.core.signature import BatchSignature
from torch_conformance.oracles.core.specification import Spec
from torch_conformance.oracles.core.verdicts import (
    ALIASING,
    COMPILED,
    CRASH,
    FAKE,
    HARNESS,
    KNOWN_COMPILER_FAULT,
    METADATA,
    NONDETERMINISTIC,
    OUT_ARGUMENT,
    OUTPUT_ALIASING,
    OUTPUTS,
    SIZE_1_STRIDES,
    VALUES,
)
from torch_conformance.oracles.judging.common_findings import crash, missing_fake, no_fake
from torch_conformance.oracles.modes.compiled import AOT_EAGER, Compiled
from torch_conformance.oracles.modes.eager import EAGER
from torch_conformance.oracles.modes.mode import IN_PROGRAM, Run
from torch_conformance.oracles.modes.programs import around
from torch_conformance.oracles.triage.switches import CACHE, Switch

# What compare_compiled and known-fault triage give.
GIVEN = (
    VALUES,
    METADATA,
    SIZE_1_STRIDES,
    ALIASING,
    OUTPUTS,
    OUTPUT_ALIASING,
    COMPILED,
    FAKE,
    OUT_ARGUMENT,
    HARNESS,
    CRASH,
    KNOWN_COMPILER_FAULT,
    NONDETERMINISTIC,
)
# Dynamo reads a keyword argument named ``out`` as an ``out=`` call.
_OUT_KEYWORD = "non-contiguous `out=` tensor"
_OUT_ADVICE = (
    "Dynamo reads a keyword argument named 'out' as an out= call and refuses a "
    "non-contiguous view for it, so code that passes out=... by keyword cannot compile "
    "with a strided output: rename the argument (e.g. 'output'), have callers pass it "
    "positionally, or require a contiguous out"
)


def out_keyword(spec: Spec, case: Case) -> list[Finding]:
    """The op's written ``out`` is a non-contiguous view in this Case."""
    if "out" not in spec.declared_writes or not isinstance(case.args.get("out"), View):
        return []
    out = case.bind(case.meta_buffers())["out"]
    if out.is_contiguous():
        return []
    return [Finding(OUT_ARGUMENT, f"{_OUT_ADVICE}; this Case's out is strided", False)]


def compile_failure(spec: Spec, mode: Compiled, error: BaseException) -> Finding:
    """The compiled program raised: named by its real cause."""
    if missing_fake(spec, error):
        return no_fake(spec, error)
    if _OUT_KEYWORD in str(error):
        return Finding(OUT_ARGUMENT, f"the program passes out= by keyword: {_OUT_ADVICE}")
    return Finding(
        COMPILED,
        f"the program compiled by {mode.name} failed where eager ran: " + error_text(error),
        error=error,
    )


def compare_compiled(
    spec: Spec,
    case: Case,
    mode: Compiled,
    batch: BatchSignature | None = None,
    fresh: bool = False,
    dynamic: bool = False,
    intermediate: frozenset[int] = frozenset(),
    predicted: Case | None = None,
    outputs: bool = True,
) -> list[Finding]:
    """The Case's program compiled in ``mode`` against it run eagerly;
    ``intermediate``: the outputs that are views of tensors the program made,
    whose strides torch.compile does not promise; ``predicted``: another
    Case to run eagerly instead, compared bit for bit (a known fault's
    predicted answer); ``outputs`` False compares the buffers alone."""
    eager = EAGER.run(spec, predicted or case, IN_PROGRAM)
    if eager.error is not None:
        return crash(spec, eager)
    compiled = mode.run(spec, case, Run(program=True, batch=batch, dynamic=dynamic, fresh=fresh))
    if compiled.error is not None:
        return [compile_failure(spec, mode, compiled.error)]
    if compiled.vacuity is not None:
        return [Finding(HARNESS, f"no verdict: {compiled.vacuity}")]
    exact = spec.bit_exact or predicted is not None

    def expected() -> tuple[Any, Mapping[str, Any]]:
        assert spec.reference is not None, "validation refuses bit_exact=False without one"
        return program_expectation(around(spec, case), spec.reference, case.allocate(), case.bind)

    found = against_eager(
        (eager.outputs, eager.buffers_after),
        (compiled.outputs, compiled.buffers_after),
        mode.name,
        budget=None if exact else spec.ulp_budget,
        expected=expected,
        intermediate=intermediate,
        outputs=outputs,
    )
    if predicted is None and any(f.blocking and f.verdict == VALUES for f in found):
        return unrepeatable(spec, case, eager) or found
    return found


def unrepeatable(spec: Spec, case: Case, eager: Observation) -> list[Finding]:
    """Eager is a witness only when it repeats: where a second eager run of
    the Case's program, on fresh copies of its buffers, disagrees with the
    first, one Finding says so (blocking on a Case the op accepts) and no
    compiled Mode is blamed; else none."""
    again = EAGER.run(spec, case, IN_PROGRAM)
    if again.error is not None:
        differ = [f"the second raised {error_text(again.error, 1)}"]
    else:
        differ = [
            f.message
            for f in against_eager(
                (eager.outputs, eager.buffers_after),
                (again.outputs, again.buffers_after),
                "a second eager run",
            )
            if f.blocking
        ]
    if not differ:
        return []
    accepted = spec.inferred is None or not spec.inferred(case)
    whose = (
        "a Case the op accepts"
        if accepted
        else "a Case its recording only infers the op accepts (not blocking)"
    )
    return [
        Finding(
            NONDETERMINISTIC,
            f"{spec.label} is not deterministic on {whose}: two eager runs on fresh copies "
            f"of its buffers disagree ({differ[0]}), so it reads memory it does not own or "
            "does not initialise, and no compiled Mode is judged on this Case",
            blocking=accepted,
        )
    ]


@dataclasses.dataclass(frozen=True)
class CompiledEvidence:
    """How known-fault triage runs a Case of the compiled or programs check
    other ways (``oracles.triage.engine.Evidence``): each run compares the
    Case's program compiled some other way with eager."""

    spec: Spec
    case: Case
    batch: BatchSignature | None
    mode: Compiled
    dynamic: bool = False
    intermediate: frozenset[int] = frozenset()

    def witness(self, name: str) -> list[Finding]:
        if name == "static":
            return compare_compiled(self.spec, self.case, self.mode)
        return compare_compiled(self.spec, self.case, AOT_EAGER, self.batch, dynamic=self.dynamic)

    def switched(self, switch: Switch) -> list[Finding]:
        return compare_compiled(
            self.spec,
            self.case,
            switch.mode(self.mode),
            self.batch,
            fresh=switch.kind == CACHE,
            dynamic=self.dynamic,
            intermediate=self.intermediate,
        )

    def predicted(self, other: Case, outputs: bool) -> list[Finding]:
        return compare_compiled(
            self.spec,
            self.case,
            self.mode,
            self.batch,
            dynamic=self.dynamic,
            intermediate=self.intermediate,
            predicted=other,
            outputs=outputs,
        )
