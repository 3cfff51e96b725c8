"""The bug zoo as Specs: ``pytest --specs suites/zoo.py`` must fail on each.

Every entry is a known-bad op or fake; ``tests/test_zoo.py`` asserts the
Finding each one produces and its message.
"""

from __future__ import annotations

from kernels import zoo
from kernels.build import KernelsUnavailable
from oracles import reference
from oracles.domain import Domain
from oracles.spec import Spec, Unavailable
from suites.rope import rope_spec

CONTIGUOUS_POSITIONS = Domain(contiguous=("positions",), ranks={"query": (2, 3)})


def prepare_zoo() -> None:
    try:
        zoo.register()
    except KernelsUnavailable as error:
        raise Unavailable(str(error)) from error


def _zoo_spec(name: str, op: str, **fields) -> Spec:
    return rope_spec(
        name, f"conformance_zoo::{op}", families=("rope", "zoo"), prepare=prepare_zoo, **fields
    )


SPECS = [
    # Returns its 2-D/4-D inputs undeclared; the fake claims fresh contiguous outputs.
    _zoo_spec("rope_returns_inputs_gemma4_fake", "rotary_embedding_cpu", fake=zoo.gemma4_fake),
    # The older fake: right for 2-D only. No explicit example: Hypothesis must find 4-D.
    _zoo_spec(
        "rope_returns_inputs_2d_fake", "rotary_embedding_cpu", fake=zoo.two_dim_fake, examples=()
    ),
    # The fake mirrors the kernel: fake and Inductor agree, the schema does not.
    _zoo_spec("rope_returns_inputs_mirrored_fake", "rotary_embedding_cpu", fake=zoo.mirrored_fake),
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
]
