"""The Verdicts: the name of every kind of Finding.

A Verdict is the tag of a Finding (``[values]``, ``[metadata]``): what kind
of disagreement it states. Code names a Verdict by its constant, so a typo
fails at import; ``VERDICTS`` holds every one. The comparisons that produce
Findings are ``oracles.comparisons``.
"""

from __future__ import annotations

# What a Case's runs disagree on.
# Values differ bit for bit, or lie outside the ULP budget.
VALUES = "values"
# Another number or structure of outputs.
OUTPUTS = "outputs"
# Another shape, dtype, device, significant stride or offset.
METADATA = "metadata"
# Strides differ only in dimensions of size 1.
SIZE_1_STRIDES = "size-1 strides"
# A returned view of a tensor the program made, or a gradient of a drawn
# program, has other strides: torch.compile promises neither layout.
INTERMEDIATE_STRIDES = "intermediate strides"
# An output aliases other inputs, or another way.
ALIASING = "aliasing"
# Other outputs share storage with each other.
OUTPUT_ALIASING = "output aliasing"
# An output aliases what the schema does not declare.
SCHEMA = "schema"
# The op writes what its schema does not declare, or not what it does.
WRITES = "writes"
# The fake is missing or raises where the kernel does not.
FAKE = "fake"
# The op raised on a Case its spec generates.
CRASH = "crash"
# The compiled program failed where eager ran.
COMPILED = "compiled"
# Dynamo reads a keyword 'out' as an out= call.
OUT_ARGUMENT = "out argument"
# The op's autograd formula is missing, or registered where autograd never reaches it.
AUTOGRAD = "autograd"
# What the kernel does just outside its declared domain.
DOMAIN_EDGE = "domain edge"

# What the suite says of its own runs.
# A Finding a tool the suite runs (Triton's interpreter) explains: no verdict here.
NOT_JUDGEABLE = "not judgeable here"
# The compiled run proves nothing: no verdict.
HARNESS = "harness"
# The op refused a Case its spec only infers it accepts (a recording's Case
# that no recorded call shows): the edge of what is known, not a crash.
RECORDING_EDGE = "recording edge"
# The compiler refuses the program by design.
EXPECTED_REFUSAL = "expected refusal"
# A known upstream compiler fault explains the disagreement.
KNOWN_COMPILER_FAULT = "known compiler fault"
# The compiler stage where the disagreement arises.
STAGE = "stage"
# The generated program that fails, cut down, and its key.
PROGRAM = "program"

# The registry lint's, one per problem of an op's registration.
# No fake, Meta kernel or decomposition.
NO_FAKE = "no-fake"
# The fake's return is not the schema's structure.
FAKE_RETURNS = "fake-returns"
# The fake cannot take the arguments the schema passes.
FAKE_SIGNATURE = "fake-signature"
# The fake aliases other than the schema declares.
FAKE_ALIAS = "fake-alias"
# The fake's outputs differ from the kernel's.
FAKE_VS_KERNEL = "fake-vs-kernel"
# Torch.compile cannot functionalize the schema.
UNCOMPILABLE = "uncompilable"
# Inductor would fall back implicitly.
IMPLICIT_FALLBACK = "implicit-fallback"
# The fake could not be called on any input.
UNCHECKED = "unchecked"
# The fake's own code failed (TypeError, AttributeError) on a schema-derived input.
FAKE_ERROR = "fake-error"

VERDICTS: frozenset[str] = frozenset(
    value for name, value in list(globals().items()) if name.isupper() and isinstance(value, str)
)
