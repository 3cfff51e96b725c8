"""The registry lint: every op of a namespace, checked for what FakeTensor,
torch.compile and Inductor need of it, without a spec for each.

For each op it reports Findings, each named by its Verdict, that say what to do:

- ``no-fake``: nothing FakeTensor can run (no Python fake, Meta kernel or
  decomposition);
- ``fake-returns``: the fake's return structure is not the schema's (None
  for ``-> (Tensor, Tensor)``, one tensor for two, 3 for 4, a Tensor for a
  list), found by calling it on inputs derived from the schema;
- ``fake-signature``: the fake's parameters cannot take the arguments the
  schema passes (every call through torch raises TypeError);
- ``fake-alias``: an output the schema declares to be a written argument
  (``Tensor(a!)``) is not that argument in the fake, or an output aliases an
  input undeclared;
- ``fake-vs-kernel``: on a spec's Cases, the fake's outputs differ from the
  kernel's (shape, strides, dtype, aliasing), such as a shape read from
  the wrong configuration;
- ``uncompilable``: torch.compile cannot functionalize the op's schema;
- ``implicit-fallback`` (not blocking): Inductor would fall back to the
  kernel implicitly; ``torch_conformance.registry.register_fallbacks`` registers
  explicit ones;
- ``unchecked`` (not blocking): the fake raised on every schema-derived
  input and no spec gives the op valid ones.
"""

from __future__ import annotations

import contextlib
import dataclasses
import itertools
import logging
import traceback
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

import torch

from torch_conformance.oracles.checks.fake import check_fake
from torch_conformance.oracles.comparisons.outputs import schema_aliasing
from torch_conformance.oracles.core.findings import Finding, error_text
from torch_conformance.oracles.core.schema import (
    fake_source,
    functionalization_problem,
    signature_problem,
    structure_problem,
)
from torch_conformance.oracles.core.specification import Spec
from torch_conformance.oracles.core.verdicts import (
    FAKE_ALIAS,
    FAKE_ERROR,
    FAKE_RETURNS,
    FAKE_SIGNATURE,
    FAKE_VS_KERNEL,
    IMPLICIT_FALLBACK,
    NO_FAKE,
    UNCHECKED,
    UNCOMPILABLE,
)
from torch_conformance.oracles.lint import fallbacks
from torch_conformance.oracles.lint.fallbacks import lowering_of, namespace_ops
from torch_conformance.oracles.modes.fake import call_fake, fake_mode, fake_result
from torch_conformance.oracles.strategies.sampling import sample

# Spec Cases the lint runs the kernel on, when a spec has no examples.
SAMPLED_CASES = 3


@dataclasses.dataclass(frozen=True)
class OpLint:
    """What the lint found for one op."""

    op: str
    schema: str
    fake: str | None  # what FakeTensor runs, in words
    lowering: str  # torch_conformance.registry's LOWERING, EXPLICIT_FALLBACK, ...
    checked: str  # what the fake was called on
    problems: tuple[Finding, ...]
    excluded: str | None = None  # out of scope, and why: its problems block nothing
    discarded: tuple[str, ...] = ()  # schema-derived inputs the fake refused, and how

    @property
    def errors(self) -> list[Finding]:
        if self.excluded is not None:
            return []
        return [p for p in self.problems if p.blocking]


class _Underivable(Exception):
    """The lint cannot make a value of this argument type."""


def _value(kind: Any, rank: int, scalar: int) -> Any:
    """A value of schema type ``kind``: tensors of ``rank`` dimensions, ints ``scalar``."""
    if isinstance(kind, torch.OptionalType):
        return _value(kind.getElementType(), rank, scalar)
    if isinstance(kind, torch.TensorType):
        return torch.empty((4, 6, 8, 10)[:rank])
    if isinstance(kind, torch.ListType):
        element = kind.getElementType()
        count = 2 if isinstance(element, torch.TensorType) else 3
        return [_value(element, rank, scalar) for _ in range(count)]
    simple = {
        "int": scalar,
        "SymInt": scalar,
        "float": 1e-6,
        "bool": False,
        "str": "",
        "ScalarType": torch.float32,
        "Device": torch.device("cpu"),
        "Scalar": 1.0,
    }
    name = str(kind)
    if name not in simple:
        raise _Underivable(f"an argument of type {name}")
    return simple[name]


def derived_inputs(op: torch._ops.OpOverload) -> Iterator[dict[str, Any]]:
    """Argument sets made from the schema alone (call inside a FakeTensorMode):
    tensors of rank 2, 3, 1, then 4, ints 1 then 0; defaults where given."""
    for rank, scalar in itertools.product((2, 3, 1, 4), (1, 0)):
        yield {
            # real_type: a ScalarType argument's type is int, its real type ScalarType.
            a.name: a.default_value if a.has_default_value() else _value(a.real_type, rank, scalar)
            for a in op._schema.arguments
        }


@contextlib.contextmanager
def _quiet() -> Iterator[None]:
    """FakeTensor logs a traceback for every meta kernel that raises: the
    inputs the lint derives and discards are not worth one each."""
    logger = logging.getLogger("torch._subclasses.fake_tensor")
    level = logger.level
    logger.setLevel(logging.CRITICAL)
    try:
        yield
    finally:
        logger.setLevel(level)


def _on_derived_inputs(
    op: torch._ops.OpOverload, discarded: list[str]
) -> tuple[str | None, list[Finding]]:
    """What the fake was called on (None: nothing, and why), and what it
    broke; how it refused the inputs tried before go in ``discarded``."""
    mode = fake_mode()
    last: Exception = RuntimeError("no schema-derived input")
    broken: list[str] = []  # the fake's own code failing, not refusing an input
    try:
        with mode, _quiet():
            for args in derived_inputs(op):
                try:
                    value = call_fake(op, mode, args)
                except Exception as error:  # a fake may refuse any input it does not expect
                    last = error
                    if _described(args, error) not in discarded:
                        discarded.append(_described(args, error))
                    if _programming_error(error):
                        broken.append(_described(args, error))
                    continue
                return "schema-derived inputs", _judge_return(op, value, args)
    except _Underivable as error:
        return None, [_unchecked(f"the lint cannot derive {error}")]
    if broken:
        return None, [
            Finding(
                FAKE_ERROR,
                f"the fake's own code failed on a schema-derived input ({broken[0]}): a fake "
                "refuses an input it does not take with a RuntimeError or ValueError that "
                "says what it expects, and a TypeError or AttributeError raised in its own "
                "code is a bug in it; fix the fake (or, if that input is not one the op "
                "takes, write a spec whose Cases are)",
                False,
            )
        ]
    return None, [_unchecked(f"the fake raised on every one ({error_text(last, 1)})")]


def _programming_error(error: Exception) -> bool:
    """A TypeError or AttributeError raised in the fake's own code (not in
    torch's, which raises them for arguments it refuses)."""
    if not isinstance(error, (TypeError, AttributeError, NameError)):
        return False
    frames = traceback.extract_tb(error.__traceback__)
    return bool(frames) and not Path(frames[-1].filename).resolve().is_relative_to(_TORCH)


_TORCH = Path(torch.__file__).resolve().parent


def _described(args: dict[str, Any], error: Exception) -> str:
    shapes = ", ".join(
        f"{name}={list(value.shape)}" if isinstance(value, torch.Tensor) else f"{name}={value!r}"
        for name, value in args.items()
    )
    return f"{shapes}: {error_text(error, 1)}"


def _unchecked(why: str) -> Finding:
    return Finding(
        UNCHECKED,
        f"the fake's returns are unchecked: no spec gives valid inputs and on schema-derived "
        f"inputs {why}; write a spec for the op",
        False,
    )


def _judge_return(op: torch._ops.OpOverload, value: Any, args: dict[str, Any]) -> list[Finding]:
    problem = structure_problem(op, value)
    if problem is not None:
        return [Finding(FAKE_RETURNS, problem)]
    outputs = value if isinstance(value, (tuple, list)) else (value,)
    return [
        Finding(FAKE_ALIAS, finding.message)
        for finding in schema_aliasing(op, tuple(outputs), args, "the fake")
    ]


def _schema_problems(op: torch._ops.OpOverload) -> list[Finding]:
    problem = functionalization_problem(op)
    return [] if problem is None else [Finding(UNCOMPILABLE, problem)]


def _against_kernel(op: torch._ops.OpOverload, spec: Spec) -> tuple[int, list[Finding]]:
    """The fake against the kernel on one Case of every structure of the
    op's calls (else the spec's examples, or a few of its Cases): the
    registry's fake, not one the spec installs."""
    spec = dataclasses.replace(spec, fake=None)
    cases = list(spec.structures or spec.examples) or sample(spec.cases, SAMPLED_CASES)
    with spec.installed():
        for case in cases:
            try:
                found = _judge_return(op, *fake_result(op, case))
            except Exception:  # the fake check below says how it raised
                found = []
            if not found:
                # What the fake check rates not blocking, the lint keeps as it is.
                found = [
                    Finding(FAKE_VS_KERNEL, f.message) if f.blocking else f
                    for f in check_fake(spec, case)
                ]
            if found:
                where = f" (on {case.describe()})"
                return len(cases), [
                    dataclasses.replace(p, message=p.message + where) for p in found
                ]
    return len(cases), []


def lint_op(op: torch._ops.OpOverload, specs: Sequence[Spec] = ()) -> OpLint:
    """Lint one op; ``specs`` of it (if any) give the kernel valid Cases."""
    source = fake_source(op)
    problems = _schema_problems(op)
    discarded: list[str] = []
    checked = "nothing: it has no fake"
    if source is None:
        problems.append(
            Finding(
                NO_FAKE,
                "no fake (no Python fake, Meta kernel or decomposition), so FakeTensor, "
                "torch.compile and export cannot trace it: register one with "
                f'@torch.library.register_fake("{op.name()}") returning outputs '
                "with the kernel's shapes, strides and aliasing",
            )
        )
    elif (wrong := signature_problem(op)) is not None:
        problems.append(Finding(FAKE_SIGNATURE, wrong))
        checked = "nothing: no call of the fake can succeed"
    else:
        derived, found = _on_derived_inputs(op, discarded)
        problems += found
        checked = derived or "nothing"
        if specs:
            # Even after a problem on derived inputs: a spec's Cases may show
            # another (a 4-D-only fake bug behind a 2-D one).
            count, against = _against_kernel(op, specs[0])
            on_cases = f"{count} Case(s) of spec {specs[0].name!r}, against the kernel"
            checked = f"{derived} and {on_cases}" if derived else on_cases
            problems += [
                p
                for p in against
                if not any(
                    p.verdict == f.verdict and p.message.startswith(f.message) for f in found
                )
            ]
    if not _has_kernel(op):
        problems = [_fake_or_schema(p) for p in problems]
    lowering = lowering_of(op)
    if lowering == fallbacks.IMPLICIT_FALLBACK:
        problems.append(
            Finding(
                IMPLICIT_FALLBACK,
                "Inductor would fall back to its kernel implicitly (no make_fallback is "
                "registered): call torch_conformance.registry.register_fallbacks"
                f"({op.namespace!r}) after setting the compile configuration",
                False,
            )
        )
    return OpLint(
        qualified_name(op),
        str(op._schema),
        source,
        lowering,
        checked,
        tuple(problems),
        discarded=tuple(discarded),
    )


# Dispatch keys whose kernel runs the op for real here.
_KERNEL_KEYS = ("CPU", "CUDA", "CompositeExplicitAutograd", "CompositeImplicitAutograd")


def _has_kernel(op: torch._ops.OpOverload) -> bool:
    name = op.name()
    return any(torch._C._dispatch_has_kernel_for_dispatch_key(name, k) for k in _KERNEL_KEYS)


def _fake_or_schema(problem: Finding) -> Finding:
    """Where no kernel is registered to say which is right, a fake that
    disagrees with its schema may be right and the schema wrong."""
    if problem.verdict not in (FAKE_RETURNS, FAKE_ALIAS):
        return problem
    message = problem.message.replace(", as the kernel does,", ",")
    return dataclasses.replace(
        problem,
        message=f"{message} (no kernel is registered here, so the fake or the schema is wrong: "
        "fix whichever disagrees with the kernel you ship)",
    )


def qualified_name(op: torch._ops.OpOverload) -> str:
    """``namespace::name`` (``.overload`` where it is not the default)."""
    overload = op._schema.overload_name
    return op.name() + (f".{overload}" if overload else "")


def lint(
    namespaces: Iterable[str], specs: Sequence[Spec] = (), only: set[str] | None = None
) -> dict[str, list[OpLint]]:
    """Every op of every namespace linted (or those of ``only``, by qualified
    name); ``specs`` give valid Cases."""
    by_op: dict[str, list[Spec]] = {}
    for spec in specs:
        overload = spec.overload
        if overload is not None:
            by_op.setdefault(str(overload), []).append(spec)
    return {
        namespace: [
            lint_op(op, by_op.get(str(op), ()))
            for op in namespace_ops(namespace)
            if only is None or qualified_name(op) in only
        ]
        for namespace in namespaces
    }
