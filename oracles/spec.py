"""Spec: how an op enters the suite, and how specs are loaded and validated.

A spec module (a ``.py`` file or an importable module) defines ``SPECS``, an
iterable of :class:`Spec`. Every check then applies to every spec.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import importlib
import importlib.util
import re
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import torch
from hypothesis.strategies import SearchStrategy

from oracles.case import Case
from oracles.domain import Domain
from oracles.reference import Expectation
from oracles.registry import fake_source


class SpecError(ValueError):
    """A spec, or a spec module, is malformed."""


class Unavailable(RuntimeError):
    """A spec's prerequisites (a compiler, a device) are missing here."""


def call_op(op: Callable, **args: Any) -> Any:
    """The default program: the op alone, its outputs returned as they are.

    A torch op gets its arguments positionally, in schema order, as model code
    passes them: Dynamo reads a keyword named ``out`` as an ``out=`` call.
    """
    positional = []
    for name in positional_names(op):
        if name not in args:
            break
        positional.append(args.pop(name))
    return op(*positional, **args)


def read_back(op: Callable, **args: Any) -> Any:
    """Model code around an op: the op, then what it produced, read as the
    next layer reads it: its outputs, or if it returns nothing the arguments
    it writes. The compiled graph must then produce every write."""
    out = call_op(op, **args)
    if out is not None:
        return out
    return tuple(args[name] for name in written_names(op) if args.get(name) is not None)


@torch._dynamo.assume_constant_result
def written_names(op: Callable) -> tuple[str, ...]:
    """The arguments a torch op's schema declares written (``Tensor(a!)``); a
    constant to Dynamo."""
    schema = getattr(op, "_schema", None)
    if schema is None:
        return ()
    return tuple(
        a.name for a in schema.arguments if a.alias_info is not None and a.alias_info.is_write
    )


@torch._dynamo.assume_constant_result
def positional_names(op: Callable) -> tuple[str, ...]:
    """The names of a torch op's positional arguments in schema order (none for a
    Python function); a constant to Dynamo, which cannot read a schema."""
    schema = getattr(op, "_schema", None)
    if schema is None:
        return ()
    return tuple(a.name for a in schema.arguments if not a.kwarg_only)


@dataclasses.dataclass(frozen=True)
class Spec:
    """One op under test.

    - ``op``: a ``torch.ops`` overload (or packet), its qualified name
      (``"namespace::name"``, resolved after ``prepare`` has loaded it), or a
      Python function.
    - ``cases``: a strategy of :class:`~oracles.case.Case` for its arguments.
    - ``reference``: float64 reference, called with the op's arguments,
      returning an :class:`~oracles.reference.Expectation`.
    - ``ulp_budget``: ULPs allowed against the reference, for eager and
      compiled runs alike.
    - ``bit_exact``: the compiled program must match the eager one bit for
      bit (opaque custom ops, data movement); otherwise each is judged
      against the reference with ``ulp_budget``.
    - ``program``: ``program(op, **args)``, the code around the op under
      compile; it must only move data, so its results stay comparable.
    - ``families``: tags that select the spec (``pytest -k rope``).
    - ``examples``: Cases always run before the generated ones.
    - ``fake``: a fake this spec installs for its op while it runs (to judge
      a candidate fake without editing the op's registration).
    - ``prepare``: called once before the spec runs (build kernels, register
      fakes); raise :class:`Unavailable` to skip with a reason.
    - ``batches``: ``batches(n)``, a strategy of lists of ``n`` Cases that
      share a Signature (one model's calls at other token counts). The
      Inductor check then compiles once per batch, with dynamic shapes in
      what varies across it. None: batches are derived from ``cases``.
    - ``domain``: the inputs the kernel handles (:class:`~oracles.domain.Domain`);
      Cases outside it are never checked.
    """

    name: str
    op: str | Callable
    cases: SearchStrategy
    reference: Callable[..., Expectation] | None
    ulp_budget: int = 0
    bit_exact: bool = True
    program: Callable[..., Any] = call_op
    families: tuple[str, ...] = ()
    examples: tuple[Case, ...] = ()
    fake: Callable | None = None
    prepare: Callable[[], None] | None = None
    batches: Callable[[int], SearchStrategy] | None = None
    domain: Domain | None = None

    def resolve(self) -> Callable:
        """The op as a callable: a qualified name is looked up in torch.ops."""
        if not isinstance(self.op, str):
            return self.op
        namespace, _, rest = self.op.partition("::")
        name, _, overload = rest.partition(".")
        try:
            return getattr(getattr(getattr(torch.ops, namespace), name), overload or "default")
        except (AttributeError, RuntimeError) as error:
            raise SpecError(
                f"spec {self.name!r}: no op {self.op!r} is registered; load the "
                "library that defines it in the spec's prepare()"
            ) from error

    @property
    def overload(self) -> torch._ops.OpOverload | None:
        """The op's torch overload, or None for a Python function."""
        op = self.resolve()
        if isinstance(op, torch._ops.OpOverloadPacket):
            op = op.default
        return op if isinstance(op, torch._ops.OpOverload) else None

    @property
    def namespace(self) -> str | None:
        """The op's namespace, without loading it (None for a Python function)."""
        if isinstance(self.op, str):
            return self.op.partition("::")[0]
        schema = getattr(self.op, "_schema", None)
        return None if schema is None else schema.name.partition("::")[0]

    @property
    def label(self) -> str:
        """The op as messages name it."""
        overload = self.overload
        if overload is not None:
            return str(overload)
        return getattr(self.op, "__qualname__", repr(self.op))

    @property
    def declared_writes(self) -> set[str]:
        """The arguments the schema declares written (``Tensor(a!)``)."""
        return set(written_names(self.overload))

    @property
    def has_fake(self) -> bool:
        """FakeTensor can trace the op (see ``oracles.registry.fake_source``)."""
        overload = self.overload
        return overload is None or fake_source(overload) is not None

    @property
    def id(self) -> str:
        return "-".join((*self.families, self.name))

    @contextlib.contextmanager
    def installed(self) -> Iterator[None]:
        """Prepare the spec and hold its own fake (if any) in place."""
        if self.prepare is not None:
            self.prepare()
        if self.fake is None:
            yield
            return
        library = torch.library.Library(self.overload.namespace, "FRAGMENT")
        try:
            torch.library.register_fake(self.overload, self.fake, lib=library)
            yield
        finally:
            library._destroy()


_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_.]*$")
_QUALNAME = re.compile(r"^\w+::\w+(\.\w+)?$")


def validate(spec: Any, where: str) -> Spec:
    """Return ``spec`` if well formed, else raise SpecError naming it."""
    if not isinstance(spec, Spec):
        raise SpecError(f"{where}: {spec!r} is a {type(spec).__name__}, not a Spec")
    label = f"spec {spec.name!r} ({where})"
    problems = []
    if not isinstance(spec.name, str) or not _NAME.match(spec.name):
        problems.append("name must be an identifier (letters, digits, _ and .)")
    if isinstance(spec.op, str):
        if not _QUALNAME.match(spec.op):
            problems.append(f"op {spec.op!r} is not a qualified name like 'namespace::name'")
    elif not callable(spec.op):
        problems.append(f"op {spec.op!r} is not callable")
    if not isinstance(spec.cases, SearchStrategy):
        problems.append(
            f"cases must be a Hypothesis strategy of Case, got {type(spec.cases).__name__}"
        )
    if spec.reference is not None and not callable(spec.reference):
        problems.append("reference must be callable or None")
    if not isinstance(spec.ulp_budget, int) or spec.ulp_budget < 0:
        problems.append(f"ulp_budget must be an int >= 0, got {spec.ulp_budget!r}")
    if not spec.bit_exact and spec.reference is None:
        problems.append("bit_exact=False needs a reference to judge against")
    if not callable(spec.program):
        problems.append("program must be callable as program(op, **args)")
    if isinstance(spec.families, str) or not all(isinstance(f, str) for f in spec.families):
        problems.append("families must be a tuple of strings")
    bad = [e for e in spec.examples if not isinstance(e, Case)]
    if bad:
        problems.append(f"examples must be Cases, got {type(bad[0]).__name__}")
    if spec.batches is not None and not callable(spec.batches):
        problems.append("batches must be callable as batches(n), or None")
    if spec.domain is not None and not isinstance(spec.domain, Domain):
        problems.append(f"domain must be an oracles.domain.Domain, got {spec.domain!r}")
    if spec.fake is not None and not isinstance(spec.op, str) and spec.overload is None:
        problems.append("fake needs op to be a torch.ops overload")
    if problems:
        raise SpecError(f"{label}: " + "; ".join(problems))
    return spec


def _import_file(path: Path) -> Any:
    """Import a spec file as pytest imports a test module: its folder on
    ``sys.path`` (so it imports its sibling modules) and registered in
    ``sys.modules`` under an importable name (Dynamo looks modules up by name)."""
    path = path.resolve()
    folder = str(path.parent)
    if folder not in sys.path:
        sys.path.insert(0, folder)
    name = path.stem
    existing = sys.modules.get(name)
    if existing is not None and Path(getattr(existing, "__file__", "") or "").resolve() == path:
        return existing
    if existing is not None or not name.isidentifier():
        digest = hashlib.sha256(str(path).encode()).hexdigest()[:8]
        stem = re.sub(r"\W", "_", path.stem)
        name = f"specs_{stem}_{digest}"
    loader = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(loader)
    sys.modules[name] = module
    try:
        loader.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]
        raise
    return module


def load_specs(target: str) -> list[Spec]:
    """The specs of a spec module given as a file path or a module name."""
    path = Path(target)
    try:
        if path.suffix == ".py" or path.exists():
            if not path.is_file():
                raise SpecError(f"{target}: no such spec file")
            module = _import_file(path)
        else:
            module = importlib.import_module(target)
    except SpecError:
        raise
    except Exception as error:
        raise SpecError(f"{target}: importing the spec module failed: {error!r}") from error
    specs = getattr(module, "SPECS", None)
    if specs is None:
        raise SpecError(f"{target}: defines no SPECS (a list of oracles.spec.Spec)")
    loaded = [validate(spec, target) for spec in specs]
    names = [spec.name for spec in loaded]
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates:
        raise SpecError(f"{target}: spec names must be unique, repeated: {duplicates}")
    if not loaded:
        raise SpecError(f"{target}: SPECS is empty")
    return loaded
