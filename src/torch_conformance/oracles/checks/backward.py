"""The backward check: the program's eager gradients, with respect to the
buffers behind the arguments the spec differentiates (``Spec.grads``), lie
within the spec's ULP budget of the float64 ones (its reference in the op's
place), for upstream gradients laid out as a model's backward passes them:
transposed, strided, expanded."""

from __future__ import annotations

from torch_conformance.oracles.core.verdicts import AUTOGRAD, CRASH, OUTPUTS, VALUES
from torch_conformance.oracles.judging.check import Check, of_case
from torch_conformance.oracles.judging.gradient_scripts import EAGER_SCRIPT
from torch_conformance.oracles.judging.gradient_verdicts import check_backward
from torch_conformance.oracles.strategies.tangents import tangent_cases, tangent_examples

CHECK = Check(
    of_case(check_backward),
    "eager gradients against the float64 reference's",
    (VALUES, OUTPUTS, CRASH, AUTOGRAD),
    order=1,
    applies=lambda spec: bool(spec.grads),
    cases=tangent_cases,
    examples=tangent_examples,
    script=EAGER_SCRIPT,
)
