"""A model's few steps, calling my_ns's ops at the token counts a server sees."""

import my_kernels  # noqa: F401  (registers my_ns)
import torch

ops = torch.ops.my_ns

torch.manual_seed(0)
weight = torch.randn(64)
for tokens in (3, 8, 5):
    hidden = torch.randn(tokens, 64)
    normed = ops.rms_norm(hidden, weight, 1e-6)
    ops.silu_and_mul(torch.cat([normed, normed], -1))
