"""The Verdicts: the name of every kind of Finding.

A Verdict is the tag of a Finding (``[values]``, ``[metadata]``): what kind
of disagreement it states. Code names a Verdict by its constant, so a typo
fails at import; ``VERDICTS`` holds every one, and ``ABOUT`` says of each
what it means, whether its Findings block and what to do about one (the
reference page of Verdicts is generated from it). The comparisons that
produce Findings are ``oracles.comparisons``.
"""

from __future__ import annotations

import dataclasses

# What a Case's runs disagree on.
VALUES = "values"
OUTPUTS = "outputs"
METADATA = "metadata"
SIZE_1_STRIDES = "size-1 strides"
DATA_DEPENDENT = "data-dependent size"
INTERMEDIATE_STRIDES = "intermediate strides"
ALIASING = "aliasing"
OUTPUT_ALIASING = "output aliasing"
SCHEMA = "schema"
WRITES = "writes"
FAKE = "fake"
CRASH = "crash"
NONDETERMINISTIC = "nondeterministic"
COMPILED = "compiled"
OUT_ARGUMENT = "out argument"
AUTOGRAD = "autograd"
DOMAIN_EDGE = "domain edge"

# What the suite says of its own runs.
NOT_JUDGEABLE = "not judgeable here"
HARNESS = "harness"
RECORDING_EDGE = "recording edge"
EXPECTED_REFUSAL = "expected refusal"
KNOWN_COMPILER_FAULT = "known compiler fault"
STAGE = "stage"
PROGRAM = "program"

# The registry lint's, one per problem of an op's registration.
NO_FAKE = "no-fake"
FAKE_RETURNS = "fake-returns"
FAKE_SIGNATURE = "fake-signature"
FAKE_ALIAS = "fake-alias"
FAKE_VS_KERNEL = "fake-vs-kernel"
UNCOMPILABLE = "uncompilable"
IMPLICIT_FALLBACK = "implicit-fallback"
UNCHECKED = "unchecked"
FAKE_ERROR = "fake-error"

VERDICTS: frozenset[str] = frozenset(
    value for name, value in list(globals().items()) if name.isupper() and isinstance(value, str)
)
LINT: frozenset[str] = frozenset(
    {
        NO_FAKE,
        FAKE_RETURNS,
        FAKE_SIGNATURE,
        FAKE_ALIAS,
        FAKE_VS_KERNEL,
        UNCOMPILABLE,
        IMPLICIT_FALLBACK,
        UNCHECKED,
        FAKE_ERROR,
    }
)


@dataclasses.dataclass(frozen=True)
class About:
    """What a reader of one Verdict's Findings needs: what it states,
    whether it fails the check, and what to do."""

    means: str
    blocks: str  # "yes", "no", or the rule where it depends
    act: str


_NOTHING = "nothing: it is reported, and counted in the report"

ABOUT: dict[str, About] = {
    VALUES: About(
        "values differ bit for bit, or lie outside the ULP budget",
        "yes",
        "eager against the reference: fix the kernel, or the reference's scale or the budget; "
        "compiled against eager: read the `[stage]` line and run the standalone repro",
    ),
    OUTPUTS: About(
        "another number or structure of outputs (count, `None`, tuple)",
        "yes",
        "make the fake (or the program) return what the kernel returns",
    ),
    METADATA: About(
        "another shape, dtype, device, significant stride or storage offset",
        "yes",
        "make the fake's layout the kernel's: the same strides and offset, not a fresh "
        "contiguous tensor where the kernel returns a view",
    ),
    SIZE_1_STRIDES: About(
        "strides differ only in dimensions of size 1",
        "no",
        _NOTHING + " (no element access can tell them apart)",
    ),
    DATA_DEPENDENT: About(
        "the fake leaves a size, stride or offset to the data (an unbacked size from "
        "`new_dynamic_size()`), so the fake check compares the rest: rank, dtype, every "
        "static size and stride, aliasing",
        "no",
        _NOTHING + " (the compiled check compares what the kernel returns at run time)",
    ),
    INTERMEDIATE_STRIDES: About(
        "a returned view of a tensor the program made, or a drawn program's gradient, has "
        "other strides",
        "no",
        _NOTHING + " (torch.compile promises neither layout)",
    ),
    ALIASING: About(
        "an output aliases other inputs, or another way",
        "yes",
        "make the fake alias what the kernel aliases; under compile, see whether a known "
        "compiler fault is named",
    ),
    OUTPUT_ALIASING: About(
        "outputs share storage with each other in one run and not in the other",
        "no",
        _NOTHING + " (a program that writes one output and reads another is judged by its values)",
    ),
    SCHEMA: About(
        "an output aliases what the schema does not declare",
        "yes",
        "declare the write (`Tensor(a!)`) and return nothing (`-> ()`), or return a fresh "
        "tensor from the kernel and the fake alike",
    ),
    WRITES: About(
        "the op writes what its schema does not declare, outside its views, or not what it "
        "declares",
        "yes",
        "annotate the argument `Tensor(a!)`, stop writing it, or drop a declared write that "
        "never happens",
    ),
    FAKE: About(
        "the fake is missing, or raises where the kernel does not",
        "yes",
        "register a fake (`torch.library.register_fake`) that runs wherever the kernel does",
    ),
    CRASH: About(
        "the op raised, or killed its process, on a Case its spec generates",
        "yes",
        "fix the kernel, or narrow the spec's Cases (or declare a `domain`); rerun the "
        "Case with the printed command",
    ),
    NONDETERMINISTIC: About(
        "two eager runs of one Case on fresh copies of its buffers disagree: the op reads "
        "memory it does not own or does not initialise (past the end of a too-short "
        "argument), so no compiled Mode is judged against it",
        "on a Case the op accepts (its spec generates it, or a recorded call); on one a "
        "recording only infers: no",
        "make the kernel check its arguments' sizes (or initialise what it reads); for an "
        "inferred Case, declare the tie it breaks with `recorded_spec(..., relations=[...])`",
    ),
    COMPILED: About(
        "the compiled program failed where eager ran",
        "yes",
        "read the compiler's words: a size or stride assert means a wrong fake; otherwise "
        "report the standalone repro upstream",
    ),
    OUT_ARGUMENT: About(
        "Dynamo reads a keyword argument named `out` as an `out=` call",
        "where the program passes `out=` by keyword and fails to compile; a strided `out` "
        "alone: no",
        "rename the argument, have callers pass it positionally, or require a contiguous `out`",
    ),
    AUTOGRAD: About(
        "the op's autograd formula is missing, or registered where autograd never reaches it",
        "yes",
        "register the formula with `torch.library.register_autograd`, at the autograd key, "
        "not inside a backend kernel",
    ),
    DOMAIN_EDGE: About(
        "what the kernel does just outside its declared domain: refuses, computes the "
        "reference's values, or computes wrong ones",
        "no",
        "decide whether the kernel should refuse such inputs; nothing else",
    ),
    NOT_JUDGEABLE: About(
        "a Finding that a tool the suite runs (Triton's interpreter) explains",
        "no",
        "judge the Case on a GPU, where Triton compiles the kernels",
    ),
    HARNESS: About(
        "the compiled run proves nothing (nothing compiled, no compiled graph ran, the op "
        "missing or eliminated, a recompile)",
        "yes; a drawn program whose eager backward gives no gradients: no",
        "make the program use what the op returns or writes, so the compiler keeps it",
    ),
    RECORDING_EDGE: About(
        "the op refused a Case its recording only infers it accepts",
        "no",
        "record a call like it, or declare the tie it breaks with "
        "`recorded_spec(..., relations=[...])`",
    ),
    EXPECTED_REFUSAL: About(
        "the compiler refuses, by design, a write through an `unfold` or `as_strided` view",
        "no",
        _NOTHING,
    ),
    KNOWN_COMPILER_FAULT: About(
        "a known upstream compiler fault explains the disagreement, on evidence specific to it",
        "no",
        "nothing in your code: the Finding names the fault, its upstream issue and its repro",
    ),
    STAGE: About(
        "the compiler stage where the disagreement arises, or the Inductor pass whose removal "
        "makes it agree",
        "no",
        "where to look first, and what to name in an upstream report",
    ),
    PROGRAM: About(
        "the generated program that fails, cut down, and its distinct-bug key",
        "no",
        "read it with the Findings above it; the repro script holds it",
    ),
    NO_FAKE: About(
        "no Python fake, Meta kernel or decomposition",
        "yes",
        "register a fake",
    ),
    FAKE_RETURNS: About(
        "the fake's return is not the schema's structure (`None` for `-> ()`, the tuple's "
        "length, Tensor for a list)",
        "yes",
        "return what the schema declares",
    ),
    FAKE_SIGNATURE: About(
        "the fake's parameters cannot take the arguments the schema passes",
        "yes",
        "give the fake the schema's parameters (a fake written for an older schema)",
    ),
    FAKE_ALIAS: About(
        "an output the schema declares `Tensor(a!)` is not that argument in the fake, or an "
        "output aliases an input undeclared",
        "yes",
        "return the written argument itself, or a fresh tensor",
    ),
    FAKE_VS_KERNEL: About(
        "on a spec's Cases, the fake's outputs differ from the kernel's in shape, dtype, "
        "strides, offset or aliasing",
        "yes",
        "make the fake compute its shapes as the kernel does (the same configuration)",
    ),
    UNCOMPILABLE: About(
        "torch.compile cannot functionalize the schema (a mutating op returns what it writes)",
        "yes",
        "return `()` from a mutating op",
    ),
    IMPLICIT_FALLBACK: About(
        "Inductor would fall back to the kernel implicitly: no `make_fallback` is registered",
        "no",
        "optional: `torch_conformance.registry.register_fallbacks`",
    ),
    UNCHECKED: About(
        "the fake raised on every schema-derived input and no spec gives valid ones",
        "no",
        "write a spec, or record the op's calls",
    ),
    FAKE_ERROR: About(
        "the fake's own code failed (`TypeError`, `AttributeError`) on every schema-derived input",
        "no",
        "fix the fake, unless that input is not one the op takes; or write a spec",
    ),
}

# The Verdicts ``ABOUT`` rates as never blocking: their Findings block in no
# check and not in the lint (``Finding`` reads this set).
NEVER_BLOCKING: frozenset[str] = frozenset(v for v, about in ABOUT.items() if about.blocks == "no")
