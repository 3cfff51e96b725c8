"""The schema check: the kernel and its fake alias, and the kernel writes, only
what the op's schema declares."""

from __future__ import annotations

import dataclasses
import string
from collections.abc import Iterable

import torch

from torch_conformance.oracles.comparisons.outputs import ALIAS_ADVICE, aliases, schema_aliasing
from torch_conformance.oracles.comparisons.writes import buffer_writes, writes
from torch_conformance.oracles.core.buffers import Case, View
from torch_conformance.oracles.core.expectation import on_cpu
from torch_conformance.oracles.core.findings import ConformanceFailure, Finding
from torch_conformance.oracles.core.specification import Spec
from torch_conformance.oracles.core.verdicts import CRASH, SCHEMA, WRITES
from torch_conformance.oracles.judging.check import Check, of_case
from torch_conformance.oracles.judging.common_findings import crash, decomposed
from torch_conformance.oracles.judging.script_drivers import (
    FAKE_IMPORT,
    REPORT,
    RUN_FAKE,
    Script,
    budget,
    op_main,
)
from torch_conformance.oracles.modes.eager import EAGER
from torch_conformance.oracles.modes.fake import FAKE
from torch_conformance.oracles.modes.mode import Mode
from torch_conformance.oracles.strategies.sampling import sample

# Cases a failing schema check samples to tell whether aliasing depends on the Case.
ALIASING_SAMPLE = 20


def check_schema(spec: Spec, case: Case) -> list[Finding]:
    """The real kernel and its fake alias, and the kernel writes, only what the schema declares."""
    eager = EAGER.run(spec, case)
    if eager.error is not None:
        return crash(spec, eager)
    found = []
    if spec.overload is not None:
        found += schema_aliasing(spec.overload, eager.outputs, eager.args)
        fake = FAKE.run(spec, case)
        if fake.error is None:  # a failing fake is the fake check's finding
            found += schema_aliasing(spec.overload, fake.outputs, fake.args, "the fake")
    before = on_cpu(eager.buffers_before)
    expectation = spec.reference(**case.bind(before)) if spec.reference else None
    found += writes(case, eager, spec.declared_writes, expectation, spec.ulp_budget)
    return found


def case_dependent_aliasing(
    spec: Spec, findings: list[Finding], others: Iterable[Case]
) -> list[Finding]:
    """``findings`` of the schema check, where an output aliases an input
    undeclared, told when the kernel returns fresh tensors for one of
    ``others``: no schema can declare aliasing that depends on the input."""
    if not any(ALIAS_ADVICE in f.message for f in findings):
        return findings
    for other in others:
        eager = EAGER.run(spec, other)
        outputs = [o for o in eager.outputs or () if isinstance(o, torch.Tensor)]
        if eager.error is None and outputs and not any(aliases(o, eager.args) for o in outputs):
            advice = (
                f"this op aliases its inputs for some Cases only (it returns fresh tensors on "
                f"{other.describe()}), which no schema can declare: always return fresh "
                "tensors, or split it into an op that always writes in place and returns "
                "its inputs (Tensor(a!)) and one that always allocates"
            )
            return [
                dataclasses.replace(f, message=f.message.replace(ALIAS_ADVICE, advice))
                for f in findings
            ]
    return findings


def _advice(spec: Spec, mode: Mode, failure: ConformanceFailure) -> list[Finding]:
    others = [*spec.examples, *sample(spec.cases, ALIASING_SAMPLE)]
    return case_dependent_aliasing(spec, failure.findings, others)


_SCHEMA_ALIASING = """\
    found += schema_aliasing(OVERLOAD, outputs, args)
    try:
        fake_args, fake = run_fake(case)
    except Exception:
        pass  # a failing fake is the fake check's finding, not this one's
    else:
        found += schema_aliasing(OVERLOAD, fake, fake_args, "the fake")
"""

_SCHEMA_WRITES = """\
    # Which elements of its buffer each argument covers.
    indices = [torch.arange(b.numel()).view(b.shape) for b in before.values()]
    index_args = arguments(*indices, *case["sizes"])
    footprints = {name: (buffer, index_args[name].reshape(-1)) for name, buffer in VIEWS.items()}
    expectation = $expectation
    found += buffer_writes(before, buffers, args, footprints, DECLARED, expectation, BUDGET)"""


def _main(spec: Spec, program: str | None, reference: str | None) -> str:
    body = _SCHEMA_ALIASING if spec.overload is not None else ""
    expectation = "None"
    if reference is not None:
        # The reference runs on the CPU, whatever device the Case lives on.
        cpu = "*(b.cpu() for b in before.values())"
        expectation = f'{reference}(**arguments({cpu}, *case["sizes"]))'
    return op_main(body + string.Template(_SCHEMA_WRITES).substitute(expectation=expectation))


def _constants(spec: Spec, case: Case) -> list[tuple[str, object, str]]:
    views = {n: v.buffer for n, v in case.args.items() if isinstance(v, View)}
    overload = (
        [] if spec.overload is None else [("OVERLOAD", spec.overload, "its schema is judged")]
    )
    return [
        *overload,
        budget(spec),
        ("DECLARED", frozenset(spec.declared_writes), "the arguments its schema declares written"),
        ("VIEWS", views, "each tensor argument: the buffer it is a view of"),
    ]


def _helpers(spec: Spec) -> tuple[list[str], list[str]]:
    if spec.overload is None:
        return [REPORT], []
    return [REPORT, RUN_FAKE], [FAKE_IMPORT]


CHECK = Check(
    of_case(check_schema),
    "eager (and fake) against the schema",
    (SCHEMA, WRITES, CRASH),
    order=2,
    finish=_advice,
    holds=decomposed,
    script=Script(
        what=(
            "It calls the op eagerly and compares what its outputs alias (in the kernel and\n"
            "in the fake) and what it writes (every buffer, bit for bit before and after)\n"
            "with what its schema declares."
        ),
        main=_main,
        agreement=lambda spec: "the op aliases and writes only what its schema declares",
        suite_code=lambda spec: [
            *([schema_aliasing] if spec.overload is not None else []),
            buffer_writes,
        ],
        helpers=_helpers,
        constants=_constants,
        reference=lambda spec: spec.reference is not None and bool(spec.declared_writes),
        fake=True,
    ),
)
