"""A compiled program that cannot pass vacuously.

A CompiledProgram is compiled with ``fullgraph=True`` through a backend that
counts the graphs Dynamo hands to Inductor and whether the op is in them,
and wraps each compiled graph to count its runs: a call that ran no Inductor
graph ran eagerly. A call that compiled is run again on restored inputs, the
compiled graph under a dispatch mode that counts the op's real calls in it
(calls made while tracing never count; the count does not depend on what a
profiler of some release records); later calls of the same graph run the
same code, so they skip the counting's cost. Recompiles are counted, and
hitting Dynamo's recompile limit fails loudly instead of falling back to
eager.
"""

from __future__ import annotations

import contextlib
import dataclasses
import importlib
import os
import types
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import Any

import torch
from torch._dynamo.backends.registry import lookup_backend
from torch._inductor.compile_fx import compile_fx, compile_fx_inner
from torch.utils._python_dispatch import TorchDispatchMode

from torch_conformance.oracles.core.buffers import Case
from torch_conformance.oracles.core.gradients import BackwardInput
from torch_conformance.oracles.modes.compile_settings import CompileSettings, settings_of


@contextmanager
def compiling_under(mode: CompileSettings, cache_dir: Path) -> Iterator[None]:
    """What a compiled run of ``mode`` runs under: its settings and config
    patches, and Inductor's caches under ``cache_dir``."""
    previous = os.environ.get("TORCHINDUCTOR_CACHE_DIR")
    os.environ["TORCHINDUCTOR_CACHE_DIR"] = str(cache_dir)
    try:
        with contextlib.ExitStack() as stack:
            stack.enter_context(mode.settings())
            for module, patch in settings_of(mode).items():
                stack.enter_context(importlib.import_module(module).patch(patch))
            yield
    finally:
        if previous is None:
            os.environ.pop("TORCHINDUCTOR_CACHE_DIR", None)
        else:
            os.environ["TORCHINDUCTOR_CACHE_DIR"] = previous


class OpCalls(TorchDispatchMode):
    """Counts the calls of one op that reach the dispatcher, directly or as
    the op a higher-order operator runs (``auto_functionalized(op, ...)``)."""

    supports_higher_order_operators = True

    def __init__(self, op: torch._ops.OpOverload | None):
        super().__init__()
        self.op = op
        self.count = 0

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if func == self.op or any(a is self.op for a in (*args, *kwargs.values())):
            self.count += 1
        return func(*args, **kwargs)


_DISPATCHED: dict[torch._ops.OpOverload, bool] = {}


def counted(op: torch._ops.OpOverload | None, case: Case) -> torch._ops.OpOverload | None:
    """``op``, where a dispatch mode sees it run as itself so a compiled run
    can count its calls; None where it never does (it decomposes, or its
    kernel above the dispatcher's Python key calls other ops): a compiled run
    of it is then judged as a pure-PyTorch program's is, by what it computes.
    Found once per op, by running it eagerly on ``case``."""
    if op is None:
        return None
    if op not in _DISPATCHED:
        calls = OpCalls(op)
        try:
            args = case.bind(case.allocate())
            with calls:
                op(**args)
        except Exception:  # the op refuses this Case: count its calls, as before
            return op
        _DISPATCHED[op] = calls.count > 0
    return op if _DISPATCHED[op] else None


def saved_inputs(graph: torch.fx.GraphModule) -> tuple[BackwardInput, ...] | None:
    """The saved tensors a backward graph takes, in order, as its fakes lay
    them out (the upstream gradients, ``tangents_*``, left out); None where a
    size is symbolic."""
    found = []
    for node in graph.graph.nodes:
        value = node.meta.get("val")
        if node.op != "placeholder" or not isinstance(value, torch.Tensor):
            continue
        if node.name.startswith("tangents"):
            continue
        shape, stride = tuple(value.shape), tuple(value.stride())
        if not all(isinstance(n, int) for n in (*shape, *stride)):
            return None
        found.append(BackwardInput(node.name, shape, stride))
    return tuple(found)


def keeping_saved(keep: Callable[[tuple[BackwardInput, ...] | None], None]) -> Callable[..., Any]:
    """Inductor as a torch.compile backend, telling ``keep`` what each
    backward it compiles takes (``saved_inputs``)."""

    def inner_compile(gm: torch.fx.GraphModule, example_inputs: Any, **kwargs: Any) -> Any:
        if kwargs.get("is_backward"):
            keep(saved_inputs(gm))
        return compile_fx_inner(gm, example_inputs, **kwargs)

    def backend(gm: torch.fx.GraphModule, example_inputs: Any) -> Any:
        return compile_fx(gm, example_inputs, inner_compile=inner_compile)

    return backend


@dataclasses.dataclass
class CompiledCall:
    """The evidence of one call: what compiled and what really ran."""

    compiled: bool  # this call compiled (a new Signature, or a recompile)
    recompiled_on_rerun: bool
    graph_runs: int  # Inductor graphs that ran
    kernel_calls: int | None  # the op's real calls in the graph that ran (None: no op)


class TracedProgram:
    """What a compiled (or deployed) program knows of its compiles: how many,
    the calls the traced graphs hold, and whether the op is one of them."""

    def __init__(
        self,
        program: Callable[..., Any],
        op: torch._ops.OpOverload | None,
        cache_dir: Path,
        mode: CompileSettings,
        dynamic: bool = False,
        on_compile: Callable[[], None] = lambda: None,
    ):
        self.program = program
        self.op = op
        self.mode = mode
        self.dynamic = dynamic
        self.cache_dir = cache_dir
        self._on_compile = on_compile  # told of every compile
        self.compiles = 0
        self.op_in_graph = False
        self.graph_calls = 0

    def _traced(self, graph: torch.fx.Graph) -> None:
        """Count a compile of ``graph``."""
        self.compiles += 1
        self._on_compile()
        for node in graph.nodes:
            if node.op in ("call_function", "call_method"):
                self.graph_calls += 1
                if self.op is not None and node.target in (self.op, self.op.overloadpacket):
                    self.op_in_graph = True

    def op_vacuity(self, call: CompiledCall, traced: str, run: str) -> str | None:
        """Why ``call`` proves nothing of the op: it is not in the graph that
        ``traced`` it, or it never ran in the program ``run`` (the compiler
        eliminated it)."""
        if self.op is None:
            return None
        if not self.op_in_graph:
            return f"{self.op} is not in the graph {traced}"
        if not call.kernel_calls:
            return (
                f"{self.op} never ran in the program {run}: the compiler eliminated it "
                "(an op with no declared output or write looks dead to it)"
            )
        return None


class CompiledProgram(TracedProgram):
    """A program compiled once in a compiled Mode, then reused for every call.

    With ``dynamic=True`` int inputs and tensor sizes are symbolic, so one
    compile serves many sizes (sizes 0 and 1 still specialize).
    """

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        program = self.program
        self._graph_runs = 0
        self._last_graph: int | None = None
        self._kernel_calls: dict[int, int] = {}  # per compiled graph, counted in it
        self._counting: OpCalls | None = None
        self._saved: dict[int, tuple[BackwardInput, ...] | None] = {}  # per graph
        self._compiling: int | None = None
        # Dynamo keeps compiled code per code object: a copy of it gives this
        # program its own cache and recompile limit.
        own = types.FunctionType(
            program.__code__.replace(),
            program.__globals__,
            program.__name__,
            program.__defaults__,
            program.__closure__,
        )
        self._compiled = torch.compile(
            own, backend=self._backend, fullgraph=True, dynamic=self.dynamic
        )

    def _backend(self, gm: torch.fx.GraphModule, example_inputs: list) -> Callable:
        self._traced(gm.graph)
        graph = self.compiles
        self._compiling = graph
        try:
            compiled: Callable[..., Any] = (
                keeping_saved(self._keep_saved)(gm, example_inputs)
                if self.mode.backend == "inductor"
                else lookup_backend(self.mode.backend)(gm, example_inputs)
            )
        finally:
            self._compiling = None

        def run(*args: Any) -> Any:
            self._graph_runs += 1
            self._last_graph = graph
            if self._counting is None:
                return compiled(*args)
            # Inside the graph, not around the program: with a dispatch mode
            # active, Dynamo would not run the compiled frame at all.
            with self._counting:
                return compiled(*args)

        return run

    def _keep_saved(self, saved: tuple[BackwardInput, ...] | None) -> None:
        """Keep what a backward takes: one compiled with its forward, or
        (AOTAutograd compiles most backwards lazily) when the forward that
        last ran first runs its backward."""
        graph = self._last_graph if self._compiling is None else self._compiling
        if graph is not None:
            self._saved[graph] = saved

    def saved_for_backward(self) -> tuple[BackwardInput, ...] | None:
        """The saved tensors the backward of the graph that last ran was
        compiled for (None until that backward compiled)."""
        return None if self._last_graph is None else self._saved.get(self._last_graph)

    def settings(self) -> AbstractContextManager[None]:
        """What the program's compiles run under: a backward, compiled when
        it first runs, outside the call, needs them too."""
        return compiling_under(self.mode, self.cache_dir)

    def _kernel_calls_of(self, inputs: tuple) -> tuple[Any, int]:
        """Run, counting in the compiled graph: the result and the op's real calls."""
        self._counting = OpCalls(self.op)
        try:
            result = self._compiled(*inputs)
        finally:
            calls, self._counting = self._counting.count, None
        return result, calls

    def __call__(
        self, *inputs: Any, pristine: Sequence[torch.Tensor] | None = None
    ) -> tuple[Any, CompiledCall]:
        """Call the program; ``pristine`` holds copies of the tensor inputs as
        they are now (the caller's snapshot), else they are copied here."""
        if pristine is None:
            pristine = [t.clone() for t in inputs if isinstance(t, torch.Tensor)]
        with compiling_under(self.mode, self.cache_dir):
            before, runs = self.compiles, self._graph_runs
            self._last_graph = None
            result = self._compiled(*inputs)
            compiled = self.compiles != before
            recompiled = False
            if compiled:
                # Compiling traced the op on fake tensors: run again on the
                # inputs as they were, counting the op's real calls.
                tensors = [t for t in inputs if isinstance(t, torch.Tensor)]
                with torch.no_grad():  # leaves that require gradients, too
                    for tensor, original in zip(tensors, pristine, strict=True):
                        tensor.copy_(original)
                before, runs = self.compiles, self._graph_runs
                self._last_graph = None
                result, calls = self._kernel_calls_of(inputs)
                recompiled = self.compiles != before
                if self._last_graph is not None:
                    self._kernel_calls[self._last_graph] = calls
        kernel_calls = None
        if self.op is not None:
            ran = self._last_graph
            kernel_calls = 0 if ran is None else self._kernel_calls.get(ran, 0)
        return result, CompiledCall(compiled, recompiled, self._graph_runs - runs, kernel_calls)

    def vacuity(self, call: CompiledCall) -> str | None:
        """Why ``call`` proves nothing, or None if it is a real compiled run."""
        if self.compiles == 0:
            return f"nothing was compiled: Dynamo handed no graph to {self.mode.name}"
        if call.recompiled_on_rerun:
            return "Dynamo recompiled on the second call with the same inputs"
        if self.graph_calls == 0:
            return "the compiled graph holds no operation: the program ran nothing"
        if call.graph_runs == 0:
            return f"no graph compiled by {self.mode.name} ran: Dynamo ran the program eagerly"
        return self.op_vacuity(call, "Dynamo compiled", f"compiled by {self.mode.name}")
