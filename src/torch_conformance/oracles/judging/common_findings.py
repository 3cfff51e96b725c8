"""What several checks say the same way: a crash, a missing fake, an error's
words, the eager run against the float64 reference, and a schema that
torch.compile cannot compile."""

from __future__ import annotations

from torch._subclasses.fake_tensor import UnsupportedOperatorException

from torch_conformance.oracles.comparisons.outputs import output_label
from torch_conformance.oracles.comparisons.values import within_ulps
from torch_conformance.oracles.core.buffers import Case
from torch_conformance.oracles.core.expectation import on_cpu
from torch_conformance.oracles.core.findings import Finding, error_chain, error_text
from torch_conformance.oracles.core.observation import Observation
from torch_conformance.oracles.core.schema import decomposes, functionalization_problem
from torch_conformance.oracles.core.specification import Spec
from torch_conformance.oracles.core.verdicts import COMPILED, CRASH, FAKE, OUTPUTS
from torch_conformance.oracles.modes.compiled import Compiled
from torch_conformance.oracles.modes.eager import EAGER
from torch_conformance.oracles.modes.mode import Mode


def crash(spec: Spec, observation: Observation) -> list[Finding]:
    """The run raised on a Case the spec generates."""
    if observation.error is None:
        return []
    return [
        Finding(
            CRASH,
            f"{spec.label} raised in {observation.mode} mode on a case its spec "
            f"generates: {error_text(observation.error)}",
        )
    ]


def check_reference(spec: Spec, case: Case) -> list[Finding]:
    """Eager results lie within the spec's ULP budget of its float64 reference."""
    eager = EAGER.run(spec, case)
    if eager.error is not None:
        return crash(spec, eager)
    return against_reference(spec, case, eager)


def against_reference(spec: Spec, case: Case, eager: Observation) -> list[Finding]:
    """An eager run that succeeded, judged against the float64 reference."""
    if spec.reference is None:
        return []
    expectation = spec.reference(**case.bind(on_cpu(eager.buffers_before)))
    found = []
    outputs = eager.outputs or ()
    if len(outputs) != len(expectation.outputs):
        found.append(
            Finding(
                OUTPUTS,
                f"{spec.label} returns {len(outputs)} output(s) but the reference "
                f"gives {len(expectation.outputs)}",
            )
        )
    for i, (out, expected) in enumerate(zip(outputs, expectation.outputs, strict=False)):
        found += within_ulps(output_label(i), out, expected, spec.ulp_budget, "eager")
    for name, expected in expectation.writes.items():
        found += within_ulps(
            f"{name} (written)", eager.args[name], expected, spec.ulp_budget, "eager"
        )
    return found


def missing_fake(spec: Spec, error: BaseException) -> bool:
    """``error`` comes of the op having no fake."""
    if any(isinstance(e, UnsupportedOperatorException) for e in error_chain(error)):
        return True
    return not spec.has_fake


def no_fake(spec: Spec, error: BaseException) -> Finding:
    """The Finding for ``missing_fake``: it names the op FakeTensor could not
    run, which may be another op than the spec's (one its program or its
    autograd formula calls)."""
    chain = error_chain(error)
    unsupported = [e.func for e in chain if isinstance(e, UnsupportedOperatorException)]
    op = unsupported[0] if unsupported else spec.overload
    label = spec.label if op is None or op == spec.overload else str(op)
    qualname = op.name() if op is not None else spec.label
    called = "" if label == spec.label else f" (called where {spec.label} runs)"
    return Finding(
        FAKE,
        f"{label}{called} has no fake (meta) implementation, so FakeTensor, "
        "torch.compile and export cannot trace it: register one with "
        f'@torch.library.register_fake("{qualname}") returning outputs '
        f"with the real kernel's shapes, strides and aliasing "
        f"({error_text(error, 1)})",
    )


def uncompilable(spec: Spec, mode: Mode) -> Finding | None:
    """Where torch.compile cannot functionalize the op's schema, every Case
    fails alike in a compiled Mode, for one fact about the schema (which a
    search would report at every rank after minutes): one Finding, shown on
    one Case."""
    overload = spec.overload
    if not isinstance(mode, Compiled) or overload is None:
        return None
    problem = functionalization_problem(overload)
    if problem is None:
        return None
    return Finding(
        COMPILED,
        f"torch.compile cannot compile {spec.label} on any Case, for its schema "
        f"`{overload._schema}`: {problem} (the registry lint's [uncompilable]; one Case "
        "shown, not shrunk: every Case fails alike)",
    )


def decomposed(spec: Spec) -> str | None:
    """Why a check of the op's own fake or schema holds by construction: the
    op decomposes (CompositeImplicitAutograd), so FakeTensor, torch.compile
    and the schema's writes are those of the ops its body calls."""
    op = spec.overload
    if op is None or not decomposes(op):
        return None
    return (
        f"holds by construction: {spec.label} decomposes (CompositeImplicitAutograd), so "
        "fake tensors run the ops it decomposes into; the compiled and programs checks "
        "judge what it computes"
    )
