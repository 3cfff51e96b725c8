"""The ops the decoder layer calls, registered on import as a kernel
library's Python package registers them: the catalog's rms_norm,
fused_add_rms_norm and silu_and_mul, and two of the zoo's buggy variants,
the rope kernel under its unconditional ``empty_like`` fake (seed 000) and
an add-norm under a fake that returns one tensor of two."""

from __future__ import annotations

import torch

from torch_conformance.families.activation import ops as activation
from torch_conformance.families.norm import ops as norm
from torch_conformance.families.norm import zoo as norm_zoo
from torch_conformance.families.rope import zoo as rope_zoo

activation.register()
norm.register()
norm_zoo.register()
rope_zoo.register()
torch.library.register_fake("conformance_zoo::rotary_embedding_cpu", rope_zoo.gemma4_fake)
