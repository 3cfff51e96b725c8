"""The compiled Modes: the Case's program compiled with ``fullgraph=True``,
the views made inside the graph, by a Dynamo backend under an Inductor config
patch. Everything that makes one compiled Mode differ from another is in the
Mode, and the Mode is in the key of its compiled programs (``cache``).
Adding a compiled Mode is adding one ``Compiled`` to ``COMPILED``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import torch
import torch._inductor.config as inductor_config

from torch_conformance.oracles.core.buffers import Case
from torch_conformance.oracles.core.calls import call_op
from torch_conformance.oracles.core.observation import Observation
from torch_conformance.oracles.core.schema import decomposes
from torch_conformance.oracles.core.signature import bind, signature_of
from torch_conformance.oracles.core.specification import Spec
from torch_conformance.oracles.modes import deployment, triton_cpu
from torch_conformance.oracles.modes.cache import compiled_programs
from torch_conformance.oracles.modes.compile_settings import CompileSettings
from torch_conformance.oracles.modes.compiled_program import counted
from torch_conformance.oracles.modes.mode import OP_ALONE, Mode, Run, observe, snapshot
from torch_conformance.oracles.modes.programs import around

if TYPE_CHECKING:
    from torch_conformance.oracles.modes.compiled_program import CompiledProgram
    from torch_conformance.oracles.modes.deployed_program import DeployedProgram

    ModeProgram = CompiledProgram | DeployedProgram


@dataclasses.dataclass(frozen=True)
class Compiled(CompileSettings, Mode):
    """The program compiled by one Dynamo backend under one Inductor config patch.

    Alone, a Case compiles statically: one compile per Signature and sizes.
    In a ``batch``, one compile serves every Case of the batch, symbolic only
    in what varies across it.
    """

    @property
    def batch_program(self) -> str:
        if self.deploy:
            return "whose Cases are each exported on their own, with dynamic dimensions"
        return super().batch_program

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

    def program(
        self,
        key: tuple,
        op: torch._ops.OpOverload | None,
        make: Callable[[], Callable[..., Any]],
        dynamic: bool = False,
        fresh: bool = False,
    ) -> ModeProgram:
        """The program ``make`` makes, compiled in this Mode (deployed, for a
        deployment Mode), kept under ``key`` unless ``fresh``."""
        # torch's compiler loads when a run first compiles, not when it starts.
        from torch_conformance.oracles.modes.compiled_program import CompiledProgram
        from torch_conformance.oracles.modes.deployed_program import DeployedProgram

        kind = DeployedProgram if self.deploy else CompiledProgram

        def build(cache_dir: Path, on_compile: Callable[[], None]) -> ModeProgram:
            return kind(make(), op, cache_dir, self, dynamic, on_compile)

        return compiled_programs().get((*key, dynamic, self), op, build, fresh)

    def judging(self, spec: Spec) -> Compiled:
        """This Mode as it compiles ``spec``: an op that decomposes is PyTorch
        arithmetic, which Inductor rounds as eager does (low-precision
        intermediates rounded, not kept in float32) only with
        ``emulate_precision_casts``, so it compiles with it on, and its
        bit-for-bit comparison judges the compiler, not that rounding."""
        op = spec.overload
        emulate = ("emulate_precision_casts", True)
        if op is None or not decomposes(op) or emulate in self.config:
            return self
        return dataclasses.replace(self, config=(*self.config, emulate))

    def run(self, spec: Spec, case: Case, how: Run = OP_ALONE) -> Observation:
        """The op (or the Case's program) compiled in this Mode, the Case's
        sizes passed as inputs."""
        judging = self.judging(spec)
        if judging is not self:
            return judging.run(spec, case, how)
        batch, dynamic = how.batch, how.dynamic
        specialized: tuple[Any, ...]
        if batch is None:
            signature, sizes = signature_of(case)
            specialized = sizes
        else:
            signature, sizes = batch.signature, batch.sizes(case)
            specialized, dynamic = (batch.dynamic, batch.static_dims), True
        names = signature.buffer_names
        op = spec.resolve()
        function = around(spec, case) if how.program else call_op

        def make() -> Callable[..., Any]:
            def compiled_program(*inputs: Any) -> Any:
                # Dynamo numbers the graph's inputs in the order it first
                # meets them, and Inductor's code (and its faults) can depend
                # on that order: meet them in buffer order, as repro scripts do.
                for tensor in inputs[: len(names)]:
                    tensor.dtype  # noqa: B018
                args = bind(signature, dict(zip(names, inputs, strict=False)), inputs[len(names) :])
                return function(op, **args)

            return compiled_program

        key = (spec.name, spec.op, function, signature, specialized)
        compiled = self.program(key, counted(spec.overload, case), make, dynamic, how.fresh)
        buffers = case.allocate()
        before = snapshot(buffers)
        if batch is not None:
            batch.mark_static(buffers)
        evidence = []

        def call() -> Any:
            result, call_evidence = compiled(
                *(buffers[n] for n in names), *sizes, pristine=[before[n] for n in names]
            )
            evidence.append(call_evidence)
            return result

        observation = observe(self.name, call, {}, buffers, before)
        if evidence:
            observation.vacuity = compiled.vacuity(evidence[0])
        return observation


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
# Deployment: no Dynamo. The exported program runs eagerly, so no stage of
# torch.compile stands before it.
EXPORT = Compiled(
    "export",
    "torch.export (non-strict; the exported program run)",
    backend="export",
    stage=0,
    deploy=deployment.EXPORT,
)
# Strict export traces with Dynamo, as torch.compile does, but hands the graph
# to no compiler: the exported program runs eagerly.
EXPORT_STRICT = dataclasses.replace(
    EXPORT,
    name="export_strict",
    what="torch.export (strict: traced by Dynamo; the exported program run)",
    deploy=deployment.EXPORT_STRICT,
)


def stages_before(mode: Compiled) -> tuple[Compiled, ...]:
    """The stages that run before ``mode``, in order: torch.compile's, or
    for AOTInductor the exported program it compiles."""
    if mode.deploy is not None and mode.deploy.packaged:
        return (EXPORT,)
    if mode.deploy:
        return ()
    return tuple(stage for stage in STAGES if stage.stage < mode.stage)


def _no_aoti() -> str | None:
    if hasattr(torch._inductor, "aoti_compile_and_package"):
        return None
    return f"torch {torch.__version__} has no torch._inductor.aoti_compile_and_package"


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
            devices=("cpu",),
            off_device="on CUDA, inductor itself generates Triton, run natively",
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
        # As torch ships it, AOTAutograd's cache serves graphs across compiles:
        # its verdicts depend on what compiled before (each Mode has its own
        # cache folder, so only this Mode's history counts).
        Compiled(
            "inductor_autograd_cache",
            "Inductor with AOTAutograd's cache on",
            autograd_cache=True,
        ),
        Compiled(
            "inductor_emulate_precision_casts",
            "Inductor rounding low-precision intermediates as eager does",
            config=(("emulate_precision_casts", True),),
            only_inexact=True,
        ),
        AOT_EAGER,
        AOT_EAGER_DECOMP_PARTITION,
        EXPORT,
        EXPORT_STRICT,
        Compiled(
            "aoti",
            "AOTInductor (the exported program compiled ahead of time, packaged, loaded and run)",
            requires=_no_aoti,
            deploy=deployment.AOTI,
        ),
    )
}
