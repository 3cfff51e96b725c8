"""The Modes a Case runs in: each a name and ``run(spec, case, batch) -> Observation``.

- ``eager``: the op called on real tensors.
- ``fake``: the op called under FakeTensorMode on the Case's arguments,
  made as views of meta buffers and wrapped as fakes, so q and k of one qkv
  buffer share fake storage as the real ones share a buffer.
- ``program``: the spec's program (the op and the code around it) run
  eagerly: what every compiled Mode is compared with.
- the compiled Modes (``COMPILED``): the same program compiled with
  ``fullgraph=True``, the views made inside the graph, by a Dynamo backend
  under an Inductor config patch. Everything that makes one compiled Mode
  differ from another is in the Mode, and the Mode is in the key of its
  compiled programs. Adding a compiled Mode is adding one ``Compiled``.

Every message names a Mode by its ``name``, the one word for it.
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any

import torch
import torch._inductor.config as inductor_config
from torch._subclasses.fake_tensor import FakeTensorMode

from oracles import triton_cpu
from oracles.case import Case
from oracles.compile import compiled_programs
from oracles.observation import Observation, flatten_outputs
from oracles.signature import BatchSignature, bind, signature_of
from oracles.spec import Spec

# Where Case.allocate puts every buffer.
_CASE_DEVICE = torch.device("cpu")


def _snapshot(buffers: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    return {name: buffer.clone() for name, buffer in buffers.items()}


def _observe(mode: str, call: Callable[[], Any], args, buffers, before) -> Observation:
    error, result = None, None
    try:
        result = call()
    except Exception as exc:  # the op's own failure is an observation
        error = exc
    return Observation(
        mode=mode,
        args=args,
        outputs=flatten_outputs(result),
        buffers_before=before,
        buffers_after=buffers,
        error=error,
    )


class Mode:
    """A way to run a Case."""

    name: str

    def run(self, spec: Spec, case: Case, batch: BatchSignature | None = None) -> Observation:
        raise NotImplementedError

    def unavailable(self, spec: Spec) -> str | None:
        """Why this Mode cannot run ``spec`` here, or None."""
        return None


class Eager(Mode):
    name = "eager"

    def run(
        self,
        spec: Spec,
        case: Case,
        batch: BatchSignature | None = None,
        snapshot: bool = True,
    ) -> Observation:
        """``snapshot=False`` skips the copy of the buffers before the call."""
        buffers = case.allocate()
        before = _snapshot(buffers) if snapshot else {}
        args = case.bind(buffers)
        op = spec.resolve()
        return _observe(self.name, lambda: op(**args), args, buffers, before)


class Fake(Mode):
    name = "fake"

    def run(self, spec: Spec, case: Case, batch: BatchSignature | None = None) -> Observation:
        op = spec.resolve()
        # Values do not matter to a fake: the Case's views are made of meta
        # buffers and wrapped as fakes, so views of one buffer share fake
        # storage as q and k share qkv, at a fraction of what converting
        # real tensors costs.
        mode = FakeTensorMode()
        # The dispatch cache pays for hashing every call and is rarely hit
        # by one Case's few calls, each at its own sizes.
        mode.cache_enabled = False
        wrap = mode.fake_tensor_converter.from_meta_and_device
        args = {
            name: wrap(mode, value, _CASE_DEVICE) if isinstance(value, torch.Tensor) else value
            for name, value in case.bind(case.meta_buffers()).items()
        }

        def call():
            with mode:
                return op(**args)

        return _observe(self.name, call, args, {}, {})


def program_of(spec: Spec, case: Case) -> tuple[list[str], Callable[..., Any]]:
    """The program as a function of the Case's buffers, in a fixed order."""
    names = sorted(case.buffers)
    op = spec.resolve()

    def program(*tensors: torch.Tensor) -> Any:
        args = case.bind(dict(zip(names, tensors, strict=False)))
        return spec.program(op, **args)

    return names, program


class Program(Mode):
    """The spec's program run eagerly (its Observation names it ``eager``)."""

    name = "eager"

    def run(self, spec: Spec, case: Case, batch: BatchSignature | None = None) -> Observation:
        names, program = program_of(spec, case)
        buffers = case.allocate()
        before = _snapshot(buffers)
        call = lambda: program(*(buffers[n] for n in names))  # noqa: E731
        return _observe(self.name, call, {}, buffers, before)


def _no_settings() -> AbstractContextManager[None]:
    return contextlib.nullcontext()


@dataclasses.dataclass(frozen=True)
class Compiled(Mode):
    """The program compiled by one Dynamo backend under one Inductor config patch.

    Alone, a Case compiles statically: one compile per Signature and sizes.
    In a ``batch``, one compile serves every Case of the batch, symbolic only
    in what varies across it.
    """

    name: str
    what: str  # what the Mode is, in words, for stage Findings and the README
    backend: str = "inductor"
    config: tuple[tuple[str, Any], ...] = ()  # torch._inductor.config patch
    stage: int = 3  # order in the compiler stack: Dynamo 0, AOTAutograd 1-2, Inductor 3
    settings: Callable[[], AbstractContextManager[None]] = _no_settings  # process state it needs
    requires: Callable[[], str | None] = lambda: None  # why it cannot run here
    only_inexact: bool = False  # only for specs with bit_exact=False
    script_setup: str = ""  # what a repro script runs for ``settings``

    def unavailable(self, spec: Spec) -> str | None:
        missing = [key for key, _ in self.config if not hasattr(inductor_config, key)]
        if missing:
            return (
                f"the {self.name} mode needs torch._inductor.config.{missing[0]}, which "
                f"torch {torch.__version__} does not have"
            )
        if self.only_inexact and spec.bit_exact:
            return (
                f"the {self.name} mode changes only how Inductor rounds arithmetic, and "
                f"spec {spec.name!r} is bit-exact (bit_exact=True): inductor covers it"
            )
        return self.requires()

    def run(
        self,
        spec: Spec,
        case: Case,
        batch: BatchSignature | None = None,
        fresh: bool = False,
        dynamic: bool = False,
    ) -> Observation:
        """The program compiled in this Mode, the Case's sizes passed as
        inputs; ``fresh`` compiles a new program for this Case; ``dynamic``
        compiles a Case alone with every size symbolic."""
        if batch is None:
            signature, sizes = signature_of(case)
            specialized = sizes
        else:
            signature, sizes = batch.signature, batch.sizes(case)
            specialized, dynamic = (batch.dynamic, batch.static_dims), True
        names = signature.buffer_names
        op = spec.resolve()

        def make() -> Callable[..., Any]:
            def program(*inputs: Any) -> Any:
                args = bind(signature, dict(zip(names, inputs, strict=False)), inputs[len(names) :])
                return spec.program(op, **args)

            return program

        key = (spec.name, spec.op, spec.program, signature, specialized)
        compiled = compiled_programs().get(key, spec.overload, make, self, dynamic, fresh)
        buffers = case.allocate()
        before = _snapshot(buffers)
        if batch is not None:
            batch.mark_static(buffers)
        evidence = []

        def call() -> Any:
            result, call_evidence = compiled(
                *(buffers[n] for n in names), *sizes, pristine=[before[n] for n in names]
            )
            evidence.append(call_evidence)
            return result

        observation = _observe(self.name, call, {}, buffers, before)
        if evidence:
            observation.vacuity = compiled.vacuity(evidence[0])
        return observation


EAGER = Eager()
FAKE = Fake()
PROGRAM = Program()

# The stages before Inductor, in order, as compiler_bisector walks them.
DYNAMO = Compiled("dynamo", "Dynamo (backend 'eager')", backend="eager", stage=0)
AOT_EAGER = Compiled("aot_eager", "AOTAutograd (backend 'aot_eager')", backend="aot_eager", stage=1)
# Its fake cross-checking variant cannot run auto_functionalized, which
# every mutating custom op becomes.
AOT_EAGER_DECOMP_PARTITION = Compiled(
    "aot_eager_decomp_partition",
    "AOTAutograd's decompositions and partitioner (backend 'aot_eager_decomp_partition')",
    backend="aot_eager_decomp_partition",
    stage=2,
)
STAGES = (DYNAMO, AOT_EAGER, AOT_EAGER_DECOMP_PARTITION)

INDUCTOR = Compiled("inductor", "Inductor")

# Every compiled Mode a spec can be checked in, by name.
COMPILED = {
    mode.name: mode
    for mode in (
        INDUCTOR,
        Compiled(
            "inductor_triton",
            "Inductor's Triton backend, on the CPU through Triton's interpreter",
            config=(("cpu_backend", "triton"),),
            settings=triton_cpu.interpreted,
            requires=triton_cpu.unavailable,
            script_setup=triton_cpu.SCRIPT_SETUP,
        ),
        # Serving stacks turn the asserts off for speed: a wrong fake then
        # gives wrong values, which the value verdicts must catch.
        Compiled(
            "inductor_no_size_asserts",
            "Inductor without its size and stride asserts",
            config=(("size_asserts", False),),
        ),
        Compiled(
            "inductor_cpp_wrapper",
            "Inductor with its C++ wrapper",
            config=(("cpp_wrapper", True),),
        ),
        Compiled(
            "inductor_emulate_precision_casts",
            "Inductor rounding low-precision intermediates as eager does",
            config=(("emulate_precision_casts", True),),
            only_inexact=True,
        ),
        AOT_EAGER,
        AOT_EAGER_DECOMP_PARTITION,
    )
}
