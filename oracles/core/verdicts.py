"""The Verdicts: the name of every kind of Finding, and what it says.

A Verdict is the tag of a Finding (``[values]``, ``[metadata]``): what kind
of disagreement it states. Code names a Verdict by its constant, so a typo
fails at import; ``VERDICTS`` holds every one with its meaning, for reports.
The comparisons that produce Findings are ``oracles.comparisons``.
"""

from __future__ import annotations

VERDICTS: dict[str, str] = {}


def _verdict(name: str, meaning: str) -> str:
    VERDICTS[name] = meaning
    return name


# What a Case's runs disagree on.
VALUES = _verdict("values", "values differ bit for bit, or lie outside the ULP budget")
OUTPUTS = _verdict("outputs", "another number or structure of outputs")
METADATA = _verdict("metadata", "another shape, dtype, device, significant stride or offset")
SIZE_1_STRIDES = _verdict("size-1 strides", "strides differ only in dimensions of size 1")
INTERMEDIATE_STRIDES = _verdict(
    "intermediate strides", "a returned view of a tensor the program made has other strides"
)
ALIASING = _verdict("aliasing", "an output aliases other inputs, or another way")
OUTPUT_ALIASING = _verdict("output aliasing", "other outputs share storage with each other")
SCHEMA = _verdict("schema", "an output aliases what the schema does not declare")
WRITES = _verdict("writes", "the op writes what its schema does not declare, or not what it does")
FAKE = _verdict("fake", "the fake is missing or raises where the kernel does not")
CRASH = _verdict("crash", "the op raised on a Case its spec generates")
COMPILED = _verdict("compiled", "the compiled program failed where eager ran")
OUT_ARGUMENT = _verdict("out argument", "Dynamo reads a keyword 'out' as an out= call")
DOMAIN_EDGE = _verdict("domain edge", "what the kernel does just outside its declared domain")
# What the suite says of its own runs.
HARNESS = _verdict("harness", "the compiled run proves nothing: no verdict")
EXPECTED_REFUSAL = _verdict("expected refusal", "the compiler refuses the program by design")
KNOWN_COMPILER_FAULT = _verdict(
    "known compiler fault", "a known upstream compiler fault explains the disagreement"
)
STAGE = _verdict("stage", "the compiler stage where the disagreement arises")
PROGRAM = _verdict("program", "the generated program that fails, cut down, and its key")
# The registry lint's, one per problem of an op's registration.
NO_FAKE = _verdict("no-fake", "no fake, Meta kernel or decomposition")
FAKE_RETURNS = _verdict("fake-returns", "the fake's return is not the schema's structure")
FAKE_ALIAS = _verdict("fake-alias", "the fake aliases other than the schema declares")
FAKE_VS_KERNEL = _verdict("fake-vs-kernel", "the fake's outputs differ from the kernel's")
UNCOMPILABLE = _verdict("uncompilable", "torch.compile cannot functionalize the schema")
IMPLICIT_FALLBACK = _verdict("implicit-fallback", "Inductor would fall back implicitly")
UNCHECKED = _verdict("unchecked", "the fake could not be called on any input")
