"""What a check's standalone repro script runs: the driver each check declares.

The comparisons in a script are the suite's own, copied from their source;
a driver says only how its check drives them (which run, which comparison,
in which order), as the check's module does. ``oracles.repro.script`` writes
the rest: the header, the op's loading, the Case and the copied code.
"""

from __future__ import annotations

import dataclasses
import string
from collections.abc import Callable, Sequence
from typing import Any

from torch_conformance.oracles.core.buffers import Buffer, Case
from torch_conformance.oracles.core.findings import Finding, error_text
from torch_conformance.oracles.core.observation import flatten_outputs
from torch_conformance.oracles.core.specification import Spec


def _nothing(spec: Spec) -> list[Any]:
    return []


def _no_constants(spec: Spec, case: Case) -> list[tuple[str, Any, str]]:
    return []


def _never(spec: Spec) -> bool:
    return False


@dataclasses.dataclass(frozen=True)
class Script:
    """How a check's script runs and judges the failing Case.

    - ``what``: what the script does, for its header;
    - ``main(spec, program, reference)``: the text of its ``main``, given the
      script's names for the spec's program and reference (None where it has
      none);
    - ``agreement(spec)``: what it prints when everything agrees;
    - ``suite_code(spec)``: the suite's functions and classes ``main`` calls
      by name, besides those every script has (``COMMON``);
    - ``helpers(spec)``: the script's own helper functions, as text, and the
      imports they need;
    - ``constants(spec, case)``: its own constants, as (name, value, comment);
    - ``reference(spec)``: whether ``main`` calls the spec's reference;
    - ``fake``: it registers the spec's fake as the run did;
    - ``runs_compiled``: it runs the program compiled in the failing Mode (its
      compile settings, its program, a batch compiled once);
    - ``differentiates``: its program receives leaves that take gradients,
      and copies them first (so that it may write them in place).
    """

    what: str
    main: Callable[[Spec, str | None, str | None], str]
    agreement: Callable[[Spec], str]
    suite_code: Callable[[Spec], list[Any]] = _nothing
    helpers: Callable[[Spec], tuple[list[str], list[str]]] = lambda spec: ([REPORT], [])
    constants: Callable[[Spec, Case], list[tuple[str, Any, str]]] = _no_constants
    reference: Callable[[Spec], bool] = _never
    fake: bool = False
    runs_compiled: bool = False
    differentiates: bool = False


def budget(spec: Spec) -> tuple[str, Any, str]:
    """The ``BUDGET`` constant of a script that judges by the spec's ULP budget."""
    return ("BUDGET", spec.ulp_budget, "ULPs allowed against the reference")


# What every script calls: its Findings, outputs as a tuple, errors in words, buffers.
COMMON: Sequence[Any] = (Finding, flatten_outputs, error_text, Buffer)

# The names the script defines itself (and its main part's locals): copied
# code gets other names.
RESERVED = frozenset(
    """
    os sys torch importlib _loader op OP_NAME AGREEMENT BUDGET DECLARED CASES VIEWS OVERLOAD
    STATIC_DIMS DYNAMIC MODE BACKEND compile_program Program allocate arguments model main run_case
    WRT NO_FORMULA BIT_EXACT SUMMED run bind_of warnings caught said why eager_gradients
    unregistered blocking expected
    run_fake report
    FakeTensorMode
    overload case buffers before args outputs found fake fake_args error expectation
    indices index_args footprints compiled findings number want got pairs label bind
    compiled_for saved inductor compiled_model forward
    """.split()
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
    mode = FakeTensorMode(shape_env=ShapeEnv())  # as torch.compile runs fakes
    fake_buffers = {
        name: mode.from_tensor(b, static_shapes=True) for name, b in allocate(case).items()
    }
    with mode:
        fake_args = arguments(*fake_buffers.values(), *case["sizes"])
        return fake_args, flatten_outputs(op(**fake_args))
'''


FAKE_IMPORT = (
    "from torch._subclasses.fake_tensor import FakeTensorMode\n"
    "from torch.fx.experimental.symbolic_shapes import ShapeEnv"
)


# The main of a check that calls the op once, eagerly, then judges it.
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


def op_main(body: str) -> str:
    """``main`` for a check that calls the op once, eagerly, then runs ``body``
    (indented code that adds to ``found``)."""
    return string.Template(_OP_MAIN.strip("\n")).substitute(body=body)
