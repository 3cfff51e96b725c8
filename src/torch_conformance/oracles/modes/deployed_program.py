"""A deployed program that cannot pass vacuously: the program exported with
``torch.export`` (non-strict, or strict where the Mode says) and run as
exported, or that export compiled ahead of time by AOTInductor, packaged,
loaded and run.

Export specializes the program's int inputs (the Case's view sizes) and
AOTInductor's code assumes its inputs' layouts, so a DeployedProgram
exports once per input signature (every tensor's shape, strides and dtype,
every other input's value), with the tensors' dimensions dynamic where the
program is (``Dim.AUTO``: symbolic where the program allows). Its evidence
is a CompiledProgram's: what was exported, whether the op is in the
exported graph, and the op's real calls counted while the deployed program
runs.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import torch
from torch.export import Dim

from torch_conformance.oracles.modes.compiled_program import (
    CompiledCall,
    OpCalls,
    TracedProgram,
    compiling_under,
)


class _Module(torch.nn.Module):
    """The program as the module torch.export takes."""

    def __init__(self, program: Callable[..., Any]):
        super().__init__()
        self.program = program

    def forward(self, *inputs: Any) -> Any:
        return self.program(*inputs)


def _signature(value: Any) -> tuple:
    if isinstance(value, torch.Tensor):
        return (tuple(value.shape), value.stride(), value.dtype)
    return (type(value), value)


class DeployedProgram(TracedProgram):
    """A program deployed in one deployment Mode, once per input signature;
    its compiles are its exports (each compiled by AOTInductor where the
    Mode does)."""

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self._deployed: dict[tuple, Callable[..., Any]] = {}

    def _deploy(self, inputs: Sequence[Any]) -> Callable[..., Any]:
        deployment = self.mode.deploy
        assert deployment is not None, f"{self.mode.name} deploys nothing"
        # Sizes 0 and 1 specialize anyway (as in Dynamo); export warns of each.
        dims = tuple(
            {d: Dim.AUTO for d, n in enumerate(v.shape) if n > 1}
            if isinstance(v, torch.Tensor)
            else None
            for v in inputs
        )
        exported = torch.export.export(
            _Module(self.program),
            tuple(inputs),
            dynamic_shapes=(dims,) if self.dynamic else None,
            strict=deployment.strict,
        )
        self._traced(exported.graph)
        if not deployment.packaged:
            return exported.module()
        # The loaded package needs its file no more: none is left behind for
        # another worker's package of the same name to replace.
        with tempfile.TemporaryDirectory() as folder:
            package = str(Path(folder) / "program.pt2")
            path = torch._inductor.aoti_compile_and_package(exported, package_path=package)
            return torch._inductor.aoti_load_package(path)

    def __call__(
        self, *inputs: Any, pristine: Sequence[torch.Tensor] | None = None
    ) -> tuple[Any, CompiledCall]:
        """Call the program (exported, and compiled, for these inputs' signature
        on first sight); ``pristine`` is not needed: export traces on fake
        tensors, so the inputs are as the caller left them."""
        with compiling_under(self.mode, self.cache_dir):
            key = tuple(map(_signature, inputs))
            compiled = key not in self._deployed
            if compiled:
                self._deployed[key] = self._deploy(inputs)
            counting = OpCalls(self.op)
            with counting:
                result = self._deployed[key](*inputs)
        calls = None if self.op is None else counting.count
        return result, CompiledCall(compiled, False, 1, calls)

    def vacuity(self, call: CompiledCall) -> str | None:
        """Why ``call`` proves nothing, or None if it is a real deployed run."""
        if self.compiles == 0:
            return f"nothing was exported for {self.mode.name}"
        if self.graph_calls == 0:
            return "the exported graph holds no operation: the program ran nothing"
        return self.op_vacuity(call, "torch.export traced", f"{self.mode.name} ran")
