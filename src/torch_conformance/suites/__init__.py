"""The conformance tests, the catalog and the zoo, the profiles' policy and
the lint's command line, the GPU check: the suite's entry points."""

from torch_conformance.kernels.interpreter import interpret_by_default

# Before anything imports torch's compiler, which imports Triton.
interpret_by_default()
