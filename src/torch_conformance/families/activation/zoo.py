"""The activation family's zoo.

``conformance_zoo::silu_and_mul_overwrites_saved``: the functional
silu_and_mul whose kernel, to save memory as training kernels do, leaves
silu(gate) in the gate half of its input once it has read it, a write its
schema does not declare. Its autograd formula saves that input to recompute
silu's derivative from, so the backward reads silu(gate) where it needs the
gate: every gate gradient is wrong, and eager runs without a word (torch's
version counter sees no write the schema does not declare).
"""

from __future__ import annotations

import functools

import torch

from torch_conformance.families import prepared
from torch_conformance.families.activation import ops, reference
from torch_conformance.families.activation.specs import SILU_AND_MUL_FUNCTIONAL, silu_spec


def _overwriting(input: torch.Tensor) -> torch.Tensor:
    result = torch.ops.conformance.silu_and_mul_functional(input)
    gate = input[..., : input.shape[-1] // 2]
    gate.copy_(torch.nn.functional.silu(gate))
    return result


@functools.cache
def register() -> None:
    """Build and load the family's ops and define the zoo's (once)."""
    ops.register()
    library = torch.library.Library("conformance_zoo", "FRAGMENT")  # noqa: TOR901
    library.define("silu_and_mul_overwrites_saved(Tensor input) -> Tensor")
    library.impl("silu_and_mul_overwrites_saved", _overwriting, "CPU")
    name = "conformance_zoo::silu_and_mul_overwrites_saved"
    torch.library.register_fake(name, ops.silu_and_mul_functional_fake, lib=library)
    torch.library.register_autograd(
        name, ops.silu_and_mul_formula, setup_context=ops.save_input, lib=library
    )
    register.library = library  # type: ignore[attr-defined]  # kept alive


SPECS = [
    silu_spec(
        "silu_and_mul_overwrites_saved",
        "conformance_zoo::silu_and_mul_overwrites_saved",
        SILU_AND_MUL_FUNCTIONAL,
        reference=reference.silu_and_mul_outputs,
        grads=("input",),
        families=("activation", "zoo", "backward"),
        prepare=prepared(register),
    ),
]
