"""Spec: how an op enters the suite.

A spec module (a ``.py`` file or an importable module) defines ``SPECS``, an
iterable of :class:`Spec`; every check then applies to every spec
(``oracles.runner.loading`` loads and validates them).
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Callable, Iterator
from typing import Any

import torch
from hypothesis.strategies import SearchStrategy

from torch_conformance.oracles.core.buffers import Case
from torch_conformance.oracles.core.calls import read_outputs, written_names
from torch_conformance.oracles.core.devices import ANYWHERE, device_type, elsewhere
from torch_conformance.oracles.core.expectation import Expectation
from torch_conformance.oracles.core.kernel_domain import Domain
from torch_conformance.oracles.core.schema import fake_source


class SpecError(ValueError):
    """A spec, or a spec module, is malformed."""


class Unavailable(RuntimeError):
    """A spec's prerequisites (a compiler, a device) are missing here."""


class HoldsByConstruction(Unavailable):
    """A check holds for a spec by construction, so it is not run (the fake
    check of an op that decomposes: FakeTensor runs the ops it decomposes into)."""


@dataclasses.dataclass(frozen=True)
class Spec:
    """One op under test.

    - ``op``: a ``torch.ops`` overload (or packet), its qualified name
      (``"namespace::name"``, resolved after ``prepare`` has loaded it), or a
      Python function.
    - ``cases``: a strategy of :class:`~torch_conformance.case.Case` for its arguments.
    - ``reference``: float64 reference, called with the op's arguments,
      returning an :class:`~torch_conformance.reference.Expectation`.
    - ``ulp_budget``: ULPs allowed against the reference, for eager and
      compiled runs alike.
    - ``bit_exact``: the compiled program must match the eager one bit for
      bit (opaque custom ops, data movement); otherwise each is judged
      against the reference with ``ulp_budget``.
    - ``program``: ``program(op, **args)``, the code around the op under
      compile; it must only move data, so its results stay comparable. By
      default ``read_outputs``: the op, then its outputs read back as model
      code reads them (through the layout and dtype its fake claims).
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
    - ``domain``: the inputs the kernel handles (:class:`~torch_conformance.domain.Domain`);
      Cases outside it are never checked.
    - ``grads``: the tensor arguments the op is differentiated with respect to
      (a pure-PyTorch op, or a custom op with a registered autograd formula);
      the backward checks judge the gradients of the program's outputs with
      respect to the buffers behind them. Empty: no backward checks.
    - ``grad_ulp_budget``: ULPs allowed for gradients against the float64 ones
      (None: ``ulp_budget``); a backward adds up the gradients of every use
      of a value (an output read more than once), and each sum rounds.
    - ``devices``: the device types the op has kernels for (``"cpu"``,
      ``"cuda"``); a run on another device skips the spec, saying so. None:
      what its ``prepare`` says (``prepare.devices``, which the families'
      helpers set: C++ kernels run on the CPU, Triton kernels where Triton
      runs them), else anywhere (a pure-PyTorch op).
    - ``structures``: one Case of every distinct structure of the op's calls
      (a recording's: which arguments are None, ranks, dtypes), on which the
      registry lint runs the fake against the kernel. Empty: the examples.
    - ``inferred``: ``inferred(case)`` is True for a Case the spec only infers
      the op accepts (a recording's Case that no recorded call shows). Where
      the op refuses one eagerly, that is the edge of what is known: a
      non-blocking ``[recording edge]`` Finding, and the Case is not judged.
      None: the op accepts every Case the spec generates.
    """

    name: str
    op: str | Callable
    cases: SearchStrategy
    reference: Callable[..., Expectation] | None
    ulp_budget: int = 0
    bit_exact: bool = True
    program: Callable[..., Any] = read_outputs
    families: tuple[str, ...] = ()
    examples: tuple[Case, ...] = ()
    fake: Callable | None = None
    prepare: Callable[[], None] | None = None
    batches: Callable[[int], SearchStrategy] | None = None
    domain: Domain | None = None
    grads: tuple[str, ...] = ()
    grad_ulp_budget: int | None = None
    inferred: Callable[[Case], bool] | None = None
    devices: tuple[str, ...] | None = None
    structures: tuple[Case, ...] = ()

    @property
    def runs_on(self) -> tuple[str, ...]:
        """The device types the op has kernels for (see ``devices``)."""
        if self.devices is not None:
            return self.devices
        return getattr(self.prepare, "devices", ANYWHERE)

    def unavailable_on(self, device: str) -> str | None:
        """Why the spec cannot run on ``device``, or None: its op has no
        kernel there, or what its kernels need is missing here
        (``prepare.unavailable_on``, where the prepare has one)."""
        check = getattr(self.prepare, "unavailable_on", None)
        kind = device_type(device)
        if kind in self.runs_on:
            return None if check is None else check(kind)
        # Kernels that can run on none of their devices here say why, as the
        # prepare itself does (the native Triton specs on a machine without CUDA).
        lacking = [] if check is None else [check(d) for d in self.runs_on]
        if lacking and all(lacking):
            return lacking[0]
        return elsewhere("its op", self.runs_on, device)

    @property
    def gradient_budget(self) -> int:
        """ULPs allowed for gradients against the float64 ones."""
        return self.ulp_budget if self.grad_ulp_budget is None else self.grad_ulp_budget

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
        """FakeTensor can trace the op (see ``oracles.core.schema.fake_source``)."""
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
        overload = self.overload
        assert overload is not None, "validation refuses a fake for a Python function"
        library = torch.library.Library(overload.namespace, "FRAGMENT")
        try:
            torch.library.register_fake(overload, self.fake, lib=library)
            yield
        finally:
            library._destroy()
