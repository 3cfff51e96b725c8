"""Cases, modes, observations and verdicts: how the suite judges an op."""

from oracles.triton_cpu import interpret_by_default

# Before anything imports triton: it reads TRITON_INTERPRET as it defines
# its own kernels.
interpret_by_default()
