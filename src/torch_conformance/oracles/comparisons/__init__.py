"""Comparisons: pure functions of two runs (or a run and a reference) that
return Findings, each named by its Verdict and saying what it saw in words a
kernel engineer can act on.

``values`` (bit for bit, ULP budgets), ``outputs`` (structure, metadata,
aliasing), ``against_eager`` (a whole run against eager's, as the compiled
and programs checks and their scripts judge it), ``writes`` (what the op
wrote), ``expected`` (the float64 expectation of a whole program) and
``saved`` (the tensors a compiled forward saved against the layouts its
backward was compiled for).
"""
