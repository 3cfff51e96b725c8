"""The fake check: the fake gives the real kernel's outputs, metadata and aliasing."""

from __future__ import annotations

import torch

from torch_conformance.oracles.comparisons.outputs import (
    aliasing,
    data_dependent,
    metadata,
    output_label,
    structure,
)
from torch_conformance.oracles.core.buffers import Case
from torch_conformance.oracles.core.findings import Finding, error_text
from torch_conformance.oracles.core.schema import python_fake, structure_problem
from torch_conformance.oracles.core.specification import Spec
from torch_conformance.oracles.core.verdicts import (
    ALIASING,
    CRASH,
    DATA_DEPENDENT,
    FAKE,
    METADATA,
    OUTPUTS,
    SIZE_1_STRIDES,
)
from torch_conformance.oracles.judging.check import Check, of_case
from torch_conformance.oracles.judging.common_findings import (
    crash,
    decomposed,
    missing_fake,
    no_fake,
)
from torch_conformance.oracles.judging.script_drivers import (
    FAKE_IMPORT,
    REPORT,
    RUN_FAKE,
    Script,
    op_main,
)
from torch_conformance.oracles.modes.eager import EAGER
from torch_conformance.oracles.modes.fake import FAKE as FAKE_MODE
from torch_conformance.oracles.modes.fake import fake_result


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


def check_fake(spec: Spec, case: Case) -> list[Finding]:
    """The fake gives the real kernel's outputs: metadata and aliasing."""
    eager = EAGER.run(spec, case)
    if eager.error is not None:
        return crash(spec, eager)
    fake = FAKE_MODE.run(spec, case)
    if fake.error is not None:
        if missing_fake(spec, fake.error):
            return [no_fake(spec, fake.error)]
        problem = _fake_structure(spec, case)
        if problem is not None:
            return [Finding(OUTPUTS, problem)]
        return [
            Finding(
                FAKE, f"the fake raised where the real kernel did not: {error_text(fake.error)}"
            )
        ]
    found = structure(eager.outputs, fake.outputs, "the fake")
    if found:
        return found
    for i, (real, other) in enumerate(zip(eager.outputs or (), fake.outputs or (), strict=False)):
        if not isinstance(real, torch.Tensor):
            continue
        label = output_label(i)
        found += metadata(label, real, other, "the fake")
        found += aliasing(label, real, eager.args, other, fake.args, "the fake")
        left = data_dependent(label, other)
        if left:
            found.append(
                Finding(
                    DATA_DEPENDENT,
                    f"{', '.join(left)} in the fake: left to the data, so not compared "
                    f"(the real kernel gives shape {list(real.shape)}, stride {real.stride()})",
                )
            )
    return found


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


CHECK = Check(
    of_case(check_fake),
    "eager and fake",
    (METADATA, SIZE_1_STRIDES, DATA_DEPENDENT, ALIASING, OUTPUTS, FAKE, CRASH),
    order=1,
    modes=(FAKE_MODE,),
    holds=decomposed,
    script=Script(
        what=(
            "It calls the op eagerly, then under FakeTensorMode on the same views of fake\n"
            "buffers, and compares the outputs' count, shapes, dtypes, strides, storage\n"
            "offsets and aliasing."
        ),
        main=lambda spec, program, reference: op_main(_FAKE),
        agreement=lambda spec: "the fake gives the real kernel's outputs: metadata and aliasing",
        suite_code=lambda spec: [structure, metadata, aliasing],
        helpers=lambda spec: ([REPORT, RUN_FAKE], [FAKE_IMPORT]),
        fake=True,
    ),
)
