"""The checks: each runs one Case in the Modes it needs and applies verdicts.

A check is data (``Check``): its name, the Modes it can run in, the verdicts
it applies and its judge, ``judge(spec, case, batch, mode) -> list[Finding]``
(an empty list is a pass). The gate makes one test of every spec, check and
Mode from ``CHECKS``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable

import torch
import torch._functorch.config as functorch_config
from hypothesis.strategies import SearchStrategy
from torch._subclasses.fake_tensor import UnsupportedOperatorException

from oracles import verdicts
from oracles.case import Case, View
from oracles.domain import edge_cases
from oracles.expected import expected_program
from oracles.findings import ConformanceFailure, Finding
from oracles.known_faults import Situation, triage
from oracles.modes import (
    AOT_EAGER,
    COMPILED,
    EAGER,
    FAKE,
    INDUCTOR,
    PROGRAM,
    STAGES,
    Compiled,
    Mode,
)
from oracles.observation import Observation
from oracles.programs.legality import expected_refusal
from oracles.programs.shrink import minimize
from oracles.programs.strategy import program_cases
from oracles.registry import fake_result, python_fake, structure_problem
from oracles.sampling import sample
from oracles.signature import BatchSignature, batch_signature
from oracles.spec import Spec


def error_text(error: BaseException, lines: int = 3) -> str:
    """The error's first lines; for Dynamo's, the user code it was tracing."""
    text = [line.strip() for line in str(error).splitlines() if line.strip()]
    marker = "from user code:"
    if marker not in text:
        return f"{type(error).__name__}: " + " / ".join(text[:lines])
    frames = [line for line in text[text.index(marker) :] if line.startswith("File ")]
    text = text[: text.index(marker)][:lines] + [f"tracing {frames[-1]}"] * bool(frames)
    return f"{type(error).__name__}: " + " / ".join(text)


def _crash(spec: Spec, observation: Observation) -> list[Finding]:
    if observation.error is None:
        return []
    return [
        Finding(
            "crash",
            f"{spec.label} raised in {observation.mode} mode on a case its spec "
            f"generates: {error_text(observation.error)}",
        )
    ]


def check_reference(
    spec: Spec, case: Case, batch: BatchSignature | None = None, mode: Mode = EAGER
) -> list[Finding]:
    """Eager results lie within the spec's ULP budget of its float64 reference."""
    eager = EAGER.run(spec, case)
    if eager.error is not None:
        return _crash(spec, eager)
    return _against_reference(spec, case, eager)


def _against_reference(spec: Spec, case: Case, eager: Observation) -> list[Finding]:
    """An eager run that succeeded, judged against the float64 reference."""
    if spec.reference is None:
        return []
    expectation = spec.reference(**case.bind(eager.buffers_before))
    found = []
    outputs = eager.outputs or ()
    if len(outputs) != len(expectation.outputs):
        found.append(
            Finding(
                "outputs",
                f"{spec.label} returns {len(outputs)} output(s) but the reference "
                f"gives {len(expectation.outputs)}",
            )
        )
    for i, (out, expected) in enumerate(zip(outputs, expectation.outputs, strict=False)):
        found += verdicts.within_ulps(f"out[{i}]", out, expected, spec.ulp_budget, "eager")
    for name, expected in expectation.writes.items():
        found += verdicts.within_ulps(
            f"{name} (written)", eager.args[name], expected, spec.ulp_budget, "eager"
        )
    return found


def _causes(error: BaseException) -> list[BaseException]:
    """``error`` and the errors it was raised from."""
    chain = [error]
    while chain[-1].__cause__ or chain[-1].__context__:
        following = chain[-1].__cause__ or chain[-1].__context__
        if following in chain:
            break
        chain.append(following)
    return chain


def _missing_fake(spec: Spec, error: BaseException) -> bool:
    if any(isinstance(e, UnsupportedOperatorException) for e in _causes(error)):
        return True
    return not spec.has_fake


# Dynamo reads a keyword argument named ``out`` as an ``out=`` call.
_OUT_KEYWORD = "non-contiguous `out=` tensor"
_OUT_ADVICE = (
    "Dynamo reads a keyword argument named 'out' as an out= call and refuses a "
    "non-contiguous view for it, so code that passes out=... by keyword cannot compile "
    "with a strided output: rename the argument (e.g. 'output'), have callers pass it "
    "positionally, or require a contiguous out"
)


def _out_keyword(spec: Spec, case: Case) -> list[Finding]:
    """The op's written ``out`` is a non-contiguous view in this Case."""
    if "out" not in spec.declared_writes or not isinstance(case.args.get("out"), View):
        return []
    out = case.bind(case.meta_buffers())["out"]
    if out.is_contiguous():
        return []
    return [Finding("out argument", f"{_OUT_ADVICE}; this Case's out is strided", False)]


def _no_fake(spec: Spec, error: BaseException) -> Finding:
    qualname = spec.overload._schema.name if spec.overload else spec.label
    return Finding(
        "fake",
        f"{spec.label} has no fake (meta) implementation, so FakeTensor, "
        "torch.compile and export cannot trace it: register one with "
        f'@torch.library.register_fake("{qualname}") returning outputs '
        f"with the real kernel's shapes, strides and aliasing "
        f"({error_text(error, 1)})",
    )


def _fake_structure(spec: Spec, case: Case) -> str | None:
    """Why the fake's own return breaks the op's schema, where it does: the
    dispatcher refuses such a return with a bare TypeError."""
    if spec.overload is None or python_fake(spec.overload) is None:
        return None
    try:
        value, _ = fake_result(spec.overload, case)
    except Exception:  # the fake raised by itself: the caller reports that
        return None
    return structure_problem(spec.overload, value)


def check_fake(
    spec: Spec, case: Case, batch: BatchSignature | None = None, mode: Mode = FAKE
) -> list[Finding]:
    """The fake gives the real kernel's outputs: metadata and aliasing."""
    eager = EAGER.run(spec, case, snapshot=False)
    if eager.error is not None:
        return _crash(spec, eager)
    fake = FAKE.run(spec, case)
    if fake.error is not None:
        if _missing_fake(spec, fake.error):
            return [_no_fake(spec, fake.error)]
        structure = _fake_structure(spec, case)
        if structure is not None:
            return [Finding("outputs", structure)]
        return [
            Finding(
                "fake", f"the fake raised where the real kernel did not: {error_text(fake.error)}"
            )
        ]
    found = verdicts.structure(eager.outputs, fake.outputs, "the fake")
    if found:
        return found
    for i, (real, other) in enumerate(zip(eager.outputs or (), fake.outputs or (), strict=False)):
        if not isinstance(real, torch.Tensor):
            continue
        label = f"out[{i}]"
        found += verdicts.metadata(label, real, other, "the fake")
        found += verdicts.aliasing(label, real, eager.args, other, fake.args, "the fake")
    return found


def check_schema(
    spec: Spec, case: Case, batch: BatchSignature | None = None, mode: Mode = EAGER
) -> list[Finding]:
    """The real kernel and its fake alias, and the kernel writes, only what the schema declares."""
    eager = EAGER.run(spec, case)
    if eager.error is not None:
        return _crash(spec, eager)
    found = []
    if spec.overload is not None:
        found += verdicts.schema_aliasing(spec.overload, eager.outputs, eager.args)
        fake = FAKE.run(spec, case)
        if fake.error is None:  # a failing fake is the fake check's finding
            found += verdicts.schema_aliasing(spec.overload, fake.outputs, fake.args, "the fake")
    expectation = spec.reference(**case.bind(eager.buffers_before)) if spec.reference else None
    found += verdicts.writes(case, eager, spec.declared_writes, expectation, spec.ulp_budget)
    return found


def case_dependent_aliasing(
    spec: Spec, findings: list[Finding], others: Iterable[Case]
) -> list[Finding]:
    """``findings`` of the schema check, where an output aliases an input
    undeclared, told when the kernel returns fresh tensors for one of
    ``others``: no schema can declare aliasing that depends on the input."""
    if not any(verdicts.ALIAS_ADVICE in f.message for f in findings):
        return findings
    for other in others:
        eager = EAGER.run(spec, other, snapshot=False)
        outputs = [o for o in eager.outputs or () if isinstance(o, torch.Tensor)]
        if (
            eager.error is None
            and outputs
            and not any(verdicts.aliases(o, eager.args) for o in outputs)
        ):
            advice = (
                f"this op aliases its inputs for some Cases only (it returns fresh tensors on "
                f"{other.describe()}), which no schema can declare: always return fresh "
                "tensors, or split it into an op that always writes in place and returns "
                "its inputs (Tensor(a!)) and one that always allocates"
            )
            return [
                dataclasses.replace(f, message=f.message.replace(verdicts.ALIAS_ADVICE, advice))
                for f in findings
            ]
    return findings


def check_compiled(
    spec: Spec, case: Case, batch: BatchSignature | None = None, mode: Compiled = INDUCTOR
) -> list[Finding]:
    """The program compiled in ``mode`` agrees with the eager one.

    Alone, the Case compiles statically; in a ``batch``, with dynamic
    shapes. A disagreement that known compiler faults explain, on the
    evidence of their witnesses, is reported without blocking.
    """
    found = _compare_compiled(spec, case, batch, mode)
    if not any(f.verdict == "out argument" for f in found):
        found += _out_keyword(spec, case)
    situation = Situation(case, batch is not None, bool(spec.declared_writes))
    return triage(found, situation, _witnesses(spec, case, batch, mode))


def _witnesses(
    spec: Spec, case: Case, batch: BatchSignature | None, mode: Compiled, dynamic: bool = False
) -> Callable[[str], list[Finding]]:
    """How known-fault triage runs the Case another way (see ``WITNESSES``)."""

    def witness(name: str) -> list[Finding]:
        if name == "static":
            return _compare_compiled(spec, case, None, mode)
        if name == "aot_eager":
            return _compare_compiled(spec, case, batch, AOT_EAGER, dynamic=dynamic)
        with functorch_config.patch(enable_autograd_cache=False):
            return _compare_compiled(spec, case, batch, mode, fresh=True, dynamic=dynamic)

    return witness


def check_programs(
    spec: Spec, case: Case, batch: BatchSignature | None = None, mode: Compiled = INDUCTOR
) -> list[Finding]:
    """A program drawn around the op (``case.program``), compiled in
    ``mode``, agrees with it run eagerly: values of its outputs and of every
    buffer after it, input-output aliasing, significant strides. A
    compiler's refusal of a write through an unfold or as_strided view is an
    expected error; a disagreement that known compiler faults explain, on
    evidence and by the program's pattern, does not block."""
    program = case.program
    around = dataclasses.replace(spec, program=program.function())
    writes = program.writes or bool(spec.declared_writes)
    situation = Situation(case, program.dynamic, writes, program.kinds(), program.written_through)
    found = _program_findings(spec, case, mode)
    return triage(found, situation, _witnesses(around, case, None, mode, program.dynamic))


def _program_findings(spec: Spec, case: Case, mode: Compiled) -> list[Finding]:
    """The programs check's Findings before known-fault triage."""
    program = case.program
    around = dataclasses.replace(spec, program=program.function())
    found = _compare_compiled(
        around, case, None, mode, dynamic=program.dynamic, intermediate=program.intermediate
    )
    return [_refused(program, mode, f) or f for f in found]


def _refused(program, mode: Compiled, finding: Finding) -> Finding | None:
    """``finding``, if it is the compiler's expected refusal, as a note."""
    if finding.verdict != "compiled" or finding.error is None:
        return None
    kind = expected_refusal(program.written_through, finding.error)
    if kind is None:
        return None
    return Finding(
        "expected refusal",
        f"{mode.name} refuses to compile a write through an {kind} view, as it does by "
        f"design: {error_text(finding.error, 1)}",
        blocking=False,
    )


def stage_at_fault(
    spec: Spec, case: Case, batch: BatchSignature | None = None, mode: Compiled = INDUCTOR
) -> Finding:
    """Which compiler stage first disagrees with eager on ``case``, as
    ``torch._inductor.compiler_bisector`` would find by hand: the program is
    compiled again by each stage before ``mode``, in order."""
    for stage in STAGES:
        if stage.stage >= mode.stage:
            break
        found = [f for f in _compare_compiled(spec, case, batch, stage) if f.blocking]
        if found:
            return Finding(
                "stage",
                f"the first compiler stage to disagree with eager is {stage.what}: {found[0]}",
                blocking=False,
            )
    before = ", ".join(stage.what for stage in STAGES if stage.stage < mode.stage)
    blame = (
        " (which alone trusts the op's fake for strides and aliasing: the fake check "
        "tells whether the fake is to blame)"
        if mode.backend == "inductor" and spec.overload is not None
        else ""
    )
    return Finding(
        "stage",
        f"every stage before {mode.name} ({before or 'none'}) agrees with eager: the "
        f"difference arises in {mode.what}{blame}",
        blocking=False,
    )


def _compile_failure(spec: Spec, mode: Compiled, error: BaseException) -> Finding:
    """The compiled program raised: named by its real cause."""
    if _missing_fake(spec, error):
        return _no_fake(spec, error)
    if _OUT_KEYWORD in str(error):
        return Finding("out argument", f"the program passes out= by keyword: {_OUT_ADVICE}")
    return Finding(
        "compiled",
        f"the program compiled by {mode.name} failed where eager ran: " + error_text(error),
        error=error,
    )


def _compare_compiled(
    spec: Spec,
    case: Case,
    batch: BatchSignature | None,
    mode: Compiled,
    fresh: bool = False,
    dynamic: bool = False,
    intermediate: frozenset[int] = frozenset(),
) -> list[Finding]:
    """``intermediate``: the outputs that are views of tensors the program
    made, whose strides torch.compile does not promise."""
    eager = PROGRAM.run(spec, case)
    if eager.error is not None:
        return _crash(spec, eager)
    compiled = mode.run(spec, case, batch, fresh, dynamic)
    if compiled.error is not None:
        return [_compile_failure(spec, mode, compiled.error)]
    if compiled.vacuity is not None:
        return [Finding("harness", f"no verdict: {compiled.vacuity}")]
    found = verdicts.structure(eager.outputs, compiled.outputs, mode.name, "eager")
    if found:
        return found
    pairs = [
        (i, f"out[{i}]", want, got)
        for i, (want, got) in enumerate(
            zip(eager.outputs or (), compiled.outputs or (), strict=True)
        )
        if isinstance(want, torch.Tensor)
    ]
    for i, label, want, got in pairs:
        significant = i not in intermediate
        found += verdicts.metadata(label, want, got, mode.name, "eager", significant)
        found += verdicts.aliasing(
            label, want, eager.buffers_after, got, compiled.buffers_after, mode.name, "eager"
        )
    found += verdicts.output_aliasing(eager.outputs or (), compiled.outputs or (), mode.name)
    if spec.bit_exact:
        for _, label, want, got in pairs:
            found += verdicts.bit_exact(label, got, want, mode.name, "eager")
        for name, want in eager.buffers_after.items():
            found += verdicts.bit_exact(
                f"buffer {name!r} after the call",
                compiled.buffers_after[name],
                want,
                mode.name,
                "eager",
            )
        return found
    outputs, buffers = expected_program(spec, case)
    for i, label, _, got in pairs:
        found += verdicts.within_ulps(label, got, outputs[i], spec.ulp_budget, mode.name)
    for name, expected in buffers.items():
        found += verdicts.within_ulps(
            f"buffer {name!r} after the call",
            compiled.buffers_after[name],
            expected,
            spec.ulp_budget,
            mode.name,
        )
    return found


def check_domain_edges(
    spec: Spec, case: Case, batch: BatchSignature | None = None, mode: Mode = EAGER
) -> list[Finding]:
    """How the kernel behaves just outside its declared domain, one broken
    rule at a time: it refuses, computes right, or computes silently wrong.
    Reported without blocking: the domain is the kernel's promise."""
    if spec.domain is None:
        return []
    found = []
    for rule, edge in edge_cases(spec.domain, case):
        eager = EAGER.run(spec, edge)
        if eager.error is not None:
            verdict = f"refuses {rule}: {error_text(eager.error, 1)}"
        elif spec.reference is None:
            verdict = f"accepts {rule} (no reference to judge its values)"
        else:
            wrong = _against_reference(spec, edge, eager)
            verdict = (
                f"accepts {rule} and silently computes wrong values: {wrong[0].message}"
                if wrong
                else f"accepts {rule} and computes the reference's values"
            )
        found.append(Finding("domain edge", f"{spec.label} {verdict}", False))
    return found


# Cases a failing schema check samples to tell whether aliasing depends on the Case.
ALIASING_SAMPLE = 20


def _schema_advice(spec: Spec, mode: Mode, failure: ConformanceFailure) -> list[Finding]:
    others = [*spec.examples, *sample(spec.cases, ALIASING_SAMPLE)]
    return case_dependent_aliasing(spec, failure.findings, others)


def _program_finding(spec: Spec, mode: Compiled, failure: ConformanceFailure) -> list[Finding]:
    """The shrunk program cut down further by deleting Steps, its Findings,
    and the key that tells distinct bugs apart."""
    case = failure.cases[failure.index]
    symptom = {f.verdict for f in failure.findings if f.blocking}

    def fails(program) -> bool:
        found = _program_findings(spec, dataclasses.replace(case, program=program), mode)
        return {f.verdict for f in found if f.blocking} == symptom

    program = minimize(case.program, fails)
    findings = failure.findings
    if program != case.program:
        case = dataclasses.replace(case, program=program)
        cases = list(failure.cases)
        cases[failure.index] = case
        failure.cases = tuple(cases)
        findings = _program_findings(spec, case, mode)
    return [
        *findings,
        Finding(
            "program",
            f"distinct bug {bug_key(failure.findings, mode, program)}; the program "
            f"({len(program)} steps):\n" + program.source(),
            blocking=False,
        ),
    ]


def bug_key(findings: Iterable[Finding], mode: Mode, program) -> str:
    """What tells two failing programs apart as bugs: the symptom (blocking
    verdicts), the Mode, static or dynamic, and the kinds of Step left."""
    symptom = "+".join(sorted({f.verdict for f in findings if f.blocking})) or "none"
    shapes = "dynamic" if program.dynamic else "static"
    return f"{symptom}/{mode.name}/{shapes}/{','.join(program.kinds())}"


def _stage_finding(spec: Spec, mode: Compiled, failure: ConformanceFailure) -> list[Finding]:
    # For the shrunk Case alone, not while shrinking: it compiles once per stage.
    batch = batch_signature(failure.cases) if failure.batched else None
    return [*failure.findings, stage_at_fault(spec, failure.cases[failure.index], batch, mode)]


@dataclasses.dataclass(frozen=True)
class Check:
    """A check as data: what the gate runs, and what its report says it compares."""

    name: str
    judge: Callable[..., list[Finding]]  # judge(spec, case, batch, mode)
    modes: tuple[Mode, ...]  # the Modes it runs in, one test each (the first by default)
    compares: str  # what it compares, in words
    verdicts: tuple[str, ...]  # the verdicts its Findings carry
    batched: bool = False  # judges batches of Cases that share a compile
    applies: Callable[[Spec], bool] = lambda spec: True
    # The Findings of a shrunk failure, refined: (spec, mode, failure) -> Findings.
    finish: Callable[..., list[Finding]] | None = None
    # The strategy of Cases it draws for a spec (default: the spec's own Cases,
    # after its examples).
    cases: Callable[[Spec], SearchStrategy] | None = None

    def mode(self, name: str | None = None) -> Mode:
        """The Mode called ``name`` (default: the check's first)."""
        if name is None:
            return self.modes[0]
        for mode in self.modes:
            if mode.name == name:
                return mode
        known = ", ".join(mode.name for mode in self.modes)
        raise KeyError(f"the {self.name} check has no mode {name!r}; its modes are {known}")


CHECKS = {
    check.name: check
    for check in (
        Check(
            "reference",
            check_reference,
            (EAGER,),
            "eager against the float64 reference",
            ("values", "outputs", "crash"),
        ),
        Check(
            "fake",
            check_fake,
            (FAKE,),
            "eager and fake",
            ("metadata", "size-1 strides", "aliasing", "outputs", "fake", "crash"),
        ),
        Check(
            "schema",
            check_schema,
            (EAGER,),
            "eager (and fake) against the schema",
            ("schema", "writes", "crash"),
            finish=_schema_advice,
        ),
        Check(
            "compiled",
            check_compiled,
            tuple(COMPILED.values()),
            "the program eagerly and compiled",
            (
                "values",
                "metadata",
                "size-1 strides",
                "aliasing",
                "outputs",
                "output aliasing",
                "compiled",
                "fake",
                "out argument",
                "harness",
                "crash",
                "known compiler fault",
                "stage",
            ),
            batched=True,
            finish=_stage_finding,
        ),
        Check(
            "programs",
            check_programs,
            tuple(COMPILED.values()),
            "programs drawn around the op, eagerly and compiled",
            (
                "values",
                "metadata",
                "size-1 strides",
                "intermediate strides",
                "aliasing",
                "output aliasing",
                "outputs",
                "compiled",
                "expected refusal",
                "fake",
                "out argument",
                "harness",
                "crash",
                "known compiler fault",
                "program",
            ),
            finish=_program_finding,
            cases=program_cases,
        ),
        Check(
            "domain_edges",
            check_domain_edges,
            (EAGER,),
            "eager just outside the spec's domain against the float64 reference",
            ("domain edge",),
            applies=lambda spec: spec.domain is not None,
        ),
    )
}
