"""What a script runs for each check: the suite's code it copies, and its main part.

The verdicts themselves are the suite's, copied from their source; what is
written here is only how a check drives them (which run, which verdict, in
which order), as oracles/checks.py does.
"""

from __future__ import annotations

import string
from typing import Any

from oracles import checks as suite_checks
from oracles import verdicts
from oracles.case import Buffer
from oracles.expected import program_expectation
from oracles.findings import Finding
from oracles.modes import Compiled
from oracles.observation import flatten_outputs
from oracles.repro.values import literal, op_expression
from oracles.spec import Spec

WHAT = {
    "fake": (
        "It calls the op eagerly, then under FakeTensorMode on the same views of fake\n"
        "buffers, and compares the outputs' count, shapes, dtypes, strides, storage\n"
        "offsets and aliasing."
    ),
    "schema": (
        "It calls the op eagerly and compares what its outputs alias (in the kernel and\n"
        "in the fake) and what it writes (every buffer, bit for bit before and after)\n"
        "with what its schema declares."
    ),
    "reference": (
        "It calls the op eagerly and judges its outputs and written arguments against\n"
        "the float64 reference, in ULPs of their dtype."
    ),
    "compiled": (
        "It runs the spec's program eagerly and compiled (fullgraph) in the check's Mode\n"
        "and compares the outputs and every buffer after the call."
    ),
}

COMPILE_SETTINGS = """\
# The suite's compile settings: Inductor asserts every output's size and
# stride after the op; an undeclared output alias of a custom op is not an
# error (torch raises on it only where the CI variable is set); no duck sizing.
import torch._dynamo.config
import torch._functorch.config
import torch._inductor.config
import torch.fx.experimental._config

torch._inductor.config.size_asserts = True
torch._functorch.config.error_on_custom_op_aliasing = False
torch.fx.experimental._config.use_duck_shape = False
torch._dynamo.config.recompile_limit = 16
torch._dynamo.config.fail_on_recompile_limit_hit = True
"""


def compile_settings(mode: Compiled) -> str:
    """The suite's compile settings, then what the Mode changes."""
    lines = [COMPILE_SETTINGS, f"# The {mode.name} mode: {mode.what}."]
    lines += [f"torch._inductor.config.{key} = {literal(value)}" for key, value in mode.config]
    lines += [mode.script_setup.strip("\n")] if mode.script_setup else []
    lines.append(f"MODE = {literal(mode.name)}")
    lines.append(f"BACKEND = {literal(mode.backend)}")
    return "\n".join(lines) + "\n"


# The names the script defines itself (and its main part's locals): copied
# code gets other names.
RESERVED = frozenset(
    """
    os sys torch importlib _loader op OP_NAME AGREEMENT BUDGET DECLARED CASES VIEWS
    STATIC_DIMS DYNAMIC MODE BACKEND allocate arguments model main run_case run_fake report
    FakeTensorMode
    overload case buffers before args outputs found fake fake_args error expectation
    indices index_args footprints compiled findings number want got pairs label bind
    """.split()
)


def suite_code(check: str, spec: Spec) -> list[Any]:
    """The suite's functions and classes the script for ``check`` calls by name."""
    wanted: list[Any] = [Finding, flatten_outputs, suite_checks.error_text, Buffer]
    compared = [verdicts.structure, verdicts.metadata, verdicts.aliasing]
    if check == "fake":
        wanted += compared
    elif check == "schema":
        wanted += [verdicts.schema_aliasing] if spec.overload is not None else []
        wanted.append(verdicts.buffer_writes)
    elif check == "reference":
        wanted += [verdicts.within_ulps] if spec.reference is not None else []
    elif spec.bit_exact:
        wanted += [*compared, verdicts.bit_exact]
    else:
        wanted += [*compared, verdicts.within_ulps, program_expectation]
    return wanted


def needs_reference(check: str, spec: Spec) -> bool:
    """Whether the script for ``check`` calls the spec's reference."""
    return spec.reference is not None and (
        check == "reference"
        or (check == "schema" and bool(spec.declared_writes))
        or (check == "compiled" and not spec.bit_exact)
    )


REPORT = '''
def report(findings):
    """Print the Findings (a list, or for a batch a list for each Case heading);
    exit status 1 while one of them blocks, 0 when everything agrees."""
    if not isinstance(findings, dict):
        findings = {"": findings}
    lines = [
        f"{heading}{finding}" + ("" if finding.blocking else " (not blocking)")
        for heading, found in findings.items()
        for finding in found
    ]
    for line in lines[:12]:
        print(line)
    if len(lines) > 12:
        print(f"... and {len(lines) - 12} more")
    blocking = sum(f.blocking for found in findings.values() for f in found)
    if blocking:
        print(f"FAILED: {blocking} difference(s)")
        return 1
    print(f"OK: {AGREEMENT}")
    return 0
'''

RUN_FAKE = '''
def run_fake(case):
    """The op under FakeTensorMode on the same views of fake buffers: views of
    one buffer share its fake storage, as the real views share the buffer."""
    mode = FakeTensorMode()
    fake_buffers = {name: mode.from_tensor(b) for name, b in allocate(case).items()}
    with mode:
        fake_args = arguments(*fake_buffers.values(), *case["sizes"])
        return fake_args, flatten_outputs(op(**fake_args))
'''

# fake, schema and reference: the op called once, eagerly, then judged.
_OP_MAIN = """
def main():
    case = CASES[0]
    buffers = allocate(case)
    before = {name: b.clone() for name, b in buffers.items()}
    args = arguments(*buffers.values(), *case["sizes"])
    try:
        outputs = flatten_outputs(op(**args))
    except Exception as error:
        crash = f"{OP_NAME} raised in eager mode on a case its spec generates"
        return report([Finding("crash", f"{crash}: {error_text(error)}")])
    found = []
$body
    return report(found)
"""

_FAKE = """\
    try:
        fake_args, fake = run_fake(case)
    except Exception as error:
        if type(error).__name__ == "UnsupportedOperatorException":
            found.append(
                Finding(
                    "fake",
                    f"{OP_NAME} has no fake (meta) implementation, so FakeTensor, "
                    f"torch.compile and export cannot trace it ({error_text(error, 1)})",
                )
            )
        else:
            raised = f"the fake raised where the real kernel did not: {error_text(error)}"
            found.append(Finding("fake", raised))
        return report(found)
    found += structure(outputs, fake, "the fake")
    if found:
        return report(found)
    for i, (real, other) in enumerate(zip(outputs or (), fake or ())):
        if isinstance(real, torch.Tensor):
            found += metadata(f"out[{i}]", real, other, "the fake")
            found += aliasing(f"out[{i}]", real, args, other, fake_args, "the fake")"""

_SCHEMA_ALIASING = """\
    overload = $overload
    found += schema_aliasing(overload, outputs, args)
    try:
        fake_args, fake = run_fake(case)
    except Exception:
        pass  # a failing fake is the fake check's finding, not this one's
    else:
        found += schema_aliasing(overload, fake, fake_args, "the fake")
"""

_SCHEMA_WRITES = """\
    # Which elements of its buffer each argument covers.
    indices = [torch.arange(b.numel()).view(b.shape) for b in before.values()]
    index_args = arguments(*indices, *case["sizes"])
    footprints = {name: (buffer, index_args[name].reshape(-1)) for name, buffer in VIEWS.items()}
    expectation = $expectation
    found += buffer_writes(before, buffers, args, footprints, DECLARED, expectation, BUDGET)"""

_REFERENCE = """\
    expectation = $reference(**arguments(*before.values(), *case["sizes"]))
    outputs = outputs or ()
    if len(outputs) != len(expectation.outputs):
        found.append(
            Finding(
                "outputs",
                f"{OP_NAME} returns {len(outputs)} output(s) but the reference "
                f"gives {len(expectation.outputs)}",
            )
        )
    for i, (out, expected) in enumerate(zip(outputs, expectation.outputs)):
        found += within_ulps(f"out[{i}]", out, expected, BUDGET, "eager")
    for name, expected in expectation.writes.items():
        found += within_ulps(f"{name} (written)", args[name], expected, BUDGET, "eager")"""

_NO_REFERENCE = "    # The spec has no reference: the check only asks that the op runs."

# inductor: the program eagerly and compiled, once for the batch.
_INDUCTOR_MAIN = """
def main():
    compiled = torch.compile(model, backend=BACKEND, fullgraph=True, dynamic=DYNAMIC)
    findings = {}
    for number, case in enumerate(CASES, 1):
        heading = f"Case {number} of {len(CASES)}: " if len(CASES) > 1 else ""
        findings[heading] = run_case(compiled, case)
    return report(findings)


def run_case(compiled, case):
    buffers = allocate(case)
    eager_buffers = {name: b.clone() for name, b in buffers.items()}
    try:
        want = flatten_outputs(model(*eager_buffers.values(), *case["sizes"]))
    except Exception as error:
        return [Finding("crash", f"the program raised in eager mode: {error_text(error)}")]
    for name, dim in STATIC_DIMS:
        torch._dynamo.mark_static(buffers[name], dim)
    try:
        got = flatten_outputs(compiled(*buffers.values(), *case["sizes"]))
    except Exception as error:
        failed = f"the program compiled by {MODE} failed where eager ran: " + error_text(error)
        return [Finding("compiled", failed)]
    found = structure(want, got, MODE, "eager")
    if found:
        return found
    pairs = [
        (i, f"out[{i}]", w, g)
        for i, (w, g) in enumerate(zip(want or (), got or ()))
        if isinstance(w, torch.Tensor)
    ]
    for _, label, w, g in pairs:
        found += metadata(label, w, g, MODE, "eager")
        found += aliasing(label, w, eager_buffers, g, buffers, MODE, "eager")
$values
    return found
"""

_BIT_EXACT = """\
    # Compared as raw bits: NaN equals NaN, -0.0 differs from 0.0.
    for _, label, w, g in pairs:
        found += bit_exact(label, g, w, MODE, "eager")
    for name, w in eager_buffers.items():
        label = f"buffer {name!r} after the call"
        found += bit_exact(label, buffers[name], w, MODE, "eager")"""

_WITHIN_ULPS = """\
    # The spec is judged by a ULP budget against the float64 program, not bit
    # for bit: Inductor may reorder its arithmetic.
    def bind(tensors):
        return arguments(*tensors.values(), *case["sizes"])

    outputs, expected_buffers = program_expectation($program, $reference, allocate(case), bind)
    for i, label, _, g in pairs:
        found += within_ulps(label, g, outputs[i], BUDGET, MODE)
    for name, expected in expected_buffers.items():
        label = f"buffer {name!r} after the call"
        found += within_ulps(label, buffers[name], expected, BUDGET, MODE)"""


def helpers(check: str, spec: Spec) -> tuple[list[str], list[str]]:
    """The script's own helpers for ``check`` and the imports they need."""
    if check == "fake" or (check == "schema" and spec.overload is not None):
        return [REPORT, RUN_FAKE], ["from torch._subclasses.fake_tensor import FakeTensorMode"]
    return [REPORT], []


def agreement(check: str, spec: Spec) -> str:
    """What the script prints when everything agrees."""
    if check == "compiled" and spec.bit_exact:
        return "the compiled program agrees with eager bit for bit"
    if check == "compiled":
        return f"the compiled program is within {spec.ulp_budget} ULP of the float64 program"
    if check == "fake":
        return "the fake gives the real kernel's outputs: metadata and aliasing"
    if check == "schema":
        return "the op aliases and writes only what its schema declares"
    if spec.reference is not None:
        return (
            f"every output and written argument is within {spec.ulp_budget} ULP "
            "of the float64 reference"
        )
    return f"{spec.label} ran (the spec has no reference to judge it against)"


def main_code(check: str, spec: Spec, program: str | None, reference: str | None) -> str:
    """The script's ``main`` for ``check``; ``program`` and ``reference`` are
    the script's names for the spec's program and reference."""
    fill = {"program": program or "program", "reference": reference or "None"}
    if check == "compiled":
        values = _BIT_EXACT if spec.bit_exact else string.Template(_WITHIN_ULPS).substitute(fill)
        return string.Template(_INDUCTOR_MAIN.strip("\n")).substitute(values=values)
    if check == "fake":
        body = _FAKE
    elif check == "schema":
        body = ""
        if spec.overload is not None:
            body = string.Template(_SCHEMA_ALIASING).substitute(
                overload=op_expression(spec.overload)
            )
        expectation = "None"
        if reference is not None and spec.declared_writes:
            expectation = f'{reference}(**arguments(*before.values(), *case["sizes"]))'
        body += string.Template(_SCHEMA_WRITES).substitute(expectation=expectation)
    elif spec.reference is not None:
        body = string.Template(_REFERENCE).substitute(fill)
    else:
        body = _NO_REFERENCE
    return string.Template(_OP_MAIN.strip("\n")).substitute(body=body)


def constants(check: str, spec: Spec, op: str) -> list[str]:
    """The script's constants: the op, its name, what agreement means, the
    ULP budget, the declared writes."""
    lines = [
        f"op = {op}",
        f"OP_NAME = {literal(spec.label)}",
        f"AGREEMENT = {literal(agreement(check, spec))}",
    ]
    if check in ("reference", "schema") or (check == "compiled" and not spec.bit_exact):
        lines.append(f"BUDGET = {spec.ulp_budget}  # ULPs allowed against the reference")
    if check == "schema":
        declared = ", ".join(literal(name) for name in sorted(spec.declared_writes))
        declared = f"{{{declared}}}" if declared else "set()"
        lines.append(f"DECLARED = {declared}  # the arguments its schema declares written")
    return lines
