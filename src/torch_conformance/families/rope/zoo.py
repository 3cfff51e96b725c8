"""The rope family's bug zoo: ``pytest --specs suites/zoo.py`` must fail on each.

Every entry is a known-bad op or fake, what some real codebase shipped;
``tests/compiled/test_zoo.py`` asserts the Finding each one produces and its message.

``conformance_zoo::rotary_embedding_cpu`` rotates 2-D and 4-D inputs in
place and returns them, and allocates for 3-D inputs, under a schema that
declares neither (see ``csrc/zoo.cpp``). Its three fakes are the three a
serving framework went through.
"""

from __future__ import annotations

import functools

import torch

from torch_conformance.families import prepared
from torch_conformance.families.rope import backward_zoo, reference
from torch_conformance.families.rope.specs import rope_spec
from torch_conformance.kernels.build import load_kernels
from torch_conformance.oracles.core.kernel_domain import Domain
from torch_conformance.oracles.core.specification import Spec


def gemma4_fake(positions, query, key, head_size, cos_sin_cache, is_neox):
    """Unconditional ``empty_like``: contiguous where the kernel returns a slice."""
    return torch.empty_like(query), torch.empty_like(key)


def two_dim_fake(positions, query, key, head_size, cos_sin_cache, is_neox):
    """The older fake: returns the inputs for 2-D only, so 4-D is wrong."""
    if query.ndim == 2:
        return query, key
    return torch.empty_like(query), torch.empty_like(key)


def mirrored_fake(positions, query, key, head_size, cos_sin_cache, is_neox):
    """Mirrors the kernel: allocate for 3-D, return the inputs otherwise."""
    if query.ndim == 3:
        return query.new_empty(query.shape), key.new_empty(key.shape)
    return query, key


def no_output_fake(positions, query, key, head_size, cos_sin_cache, is_neox) -> None:
    return None


@functools.cache
def register() -> None:
    """Build and load the zoo's ops and the fakes that never change.

    ``rotary_embedding_cpu`` gets its fake from each zoo Spec in turn;
    ``rotary_embedding_no_fake`` never gets one.
    """
    load_kernels()
    for name in (
        "rotary_embedding_undeclared_write",
        "rotary_embedding_overrun",
        "rotary_embedding_aborts",
        "rotary_embedding_contiguous_positions",
    ):
        torch.library.register_fake(f"conformance_zoo::{name}", no_output_fake)


CONTIGUOUS_POSITIONS = Domain(contiguous=("positions",), ranks={"query": (2, 3)})


prepare_zoo = prepared(register)


def _zoo_spec(name: str, op: str, **fields) -> Spec:
    return rope_spec(
        name, f"conformance_zoo::{op}", families=("rope", "zoo"), prepare=prepare_zoo, **fields
    )


SPECS = [
    # Returns its 2-D/4-D inputs undeclared; the fake claims fresh contiguous outputs.
    _zoo_spec("rope_returns_inputs_gemma4_fake", "rotary_embedding_cpu", fake=gemma4_fake),
    # The older fake: right for 2-D only. No explicit example: Hypothesis must find 4-D.
    _zoo_spec(
        "rope_returns_inputs_2d_fake", "rotary_embedding_cpu", fake=two_dim_fake, examples=()
    ),
    # The fake mirrors the kernel: fake and Inductor agree, the schema does not.
    _zoo_spec("rope_returns_inputs_mirrored_fake", "rotary_embedding_cpu", fake=mirrored_fake),
    # Rotates query and key in place under a schema that declares no write.
    _zoo_spec(
        "rope_undeclared_write",
        "rotary_embedding_undeclared_write",
        reference=reference.rope_writes,
    ),
    # A functional op nobody wrote a fake for.
    _zoo_spec("rope_no_fake", "rotary_embedding_no_fake"),
    # Writes one column past every key row, into the value part of qkv.
    _zoo_spec("rope_overrun", "rotary_embedding_overrun", reference=reference.rope_writes),
    # Kills the process on bf16 neox input when rotary_dim / 2 is not a multiple of 8.
    _zoo_spec("rope_aborts", "rotary_embedding_aborts", reference=reference.rope_writes),
    # Right inside its declared domain; reads strided positions as contiguous
    # outside it, which only the domain-edge report shows.
    _zoo_spec(
        "rope_contiguous_positions",
        "rotary_embedding_contiguous_positions",
        reference=reference.rope_writes,
        domain=CONTIGUOUS_POSITIONS,
    ),
    # Autograd formulas: one wrong for non-contiguous upstream gradients, one missing.
    *backward_zoo.SPECS,
]
