"""Benchmarks that print ratios measured side by side in one run."""

from torch_conformance.kernels.interpreter import interpret_by_default

# Before anything imports torch's compiler, which imports Triton.
interpret_by_default()
