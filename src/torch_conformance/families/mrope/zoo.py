"""The MRoPE family's bug zoo: ``pytest --specs suites/zoo.py`` must fail on each.

- ``conformance_zoo::mrope_sections`` is the catalog's C++ selection kernel
  (its chunked output is channel-major) under a fake that allocates
  row-major for both layouts: right for interleaved sections, wrong strides
  for chunked ones.
- ``conformance_zoo::mrope_rotary_embedding_triton_whole_blocks`` is the
  catalog's Triton kernel with a token mask that counts whole blocks only: a
  token count that is not a multiple of the block leaves its tail unrotated.
- ``inductor_shifted_slice_scatter`` is an injected compiler fault, seed
  004's miscompile on the CPU (see ``faults.py``): the old
  ``apply_interleaved_rope`` fails in it, the ``torch.where`` form passes.
"""

from __future__ import annotations

import torch

from torch_conformance.families import prepared, triton_prepare
from torch_conformance.families.mrope import reference
from torch_conformance.families.mrope.faults import SHIFTED_SLICE_SCATTER
from torch_conformance.families.mrope.specs import rotary_spec, selection_spec
from torch_conformance.kernels.build import load_kernels


def row_major_fake(x: torch.Tensor, mrope_section: list[int], interleaved: bool) -> torch.Tensor:
    """``new_empty`` of the output's shape, whatever the layout the kernel picks."""
    return x.new_empty((x.shape[1], x.shape[2]))


prepare_zoo = prepared(load_kernels)


SPECS = [
    # Right for interleaved sections, the examples' layout: Hypothesis must
    # find a chunked Case.
    selection_spec(
        "mrope_sections_row_major_fake",
        "conformance_zoo::mrope_sections",
        reference=reference.sections_outputs,
        with_interleaved=True,
        fake=row_major_fake,
        prepare=prepare_zoo,
        families=("mrope", "zoo"),
    ),
    # No explicit examples (the real models' Cases have 7 tokens): Hypothesis
    # must find a token count that is not a multiple of the block.
    rotary_spec(
        "mrope_triton_whole_blocks_mask",
        "conformance_zoo::mrope_rotary_embedding_triton_whole_blocks",
        prepare=triton_prepare("torch_conformance.families.mrope.triton_ops", "register_zoo"),
        families=("mrope", "triton", "zoo"),
        examples=(),
    ),
]

FAULT_MODES = (SHIFTED_SLICE_SCATTER,)
