"""Injected compiler faults: compiled Modes whose Inductor runs one more
post-grad graph pass that miscompiles on purpose.

They are the zoo of the compiler: a Mode that corrupts a program in a known
way shows that the checks catch a miscompile, shrink it and blame the right
stage, and that known-fault triage never takes a new fault for a known one.
A run uses one only where ``--modes`` names it.
"""

from __future__ import annotations

import contextlib
import hashlib
import inspect
from collections.abc import Iterator

import torch
from torch._inductor import config as inductor_config
from torch._inductor.custom_graph_pass import CustomGraphPass

from torch_conformance.oracles.modes.compiled import Compiled


class InjectedFault(CustomGraphPass):
    """A post-grad pass that rewrites ``graph`` wrongly (``rewrite``)."""

    def rewrite(self, graph: torch.fx.Graph) -> None:
        raise NotImplementedError

    def __call__(self, graph: torch.fx.Graph) -> None:
        self.rewrite(graph)

    def uuid(self) -> str:
        # Inductor's caches key a graph by it: a changed pass must not replay
        # the graphs its older source compiled.
        source = inspect.getsource(type(self)).encode()
        return f"injected-{type(self).__name__}-{hashlib.sha256(source).hexdigest()[:16]}"


def calls(graph: torch.fx.Graph, target: object) -> list[torch.fx.Node]:
    """The nodes of ``graph`` that call ``target``."""
    return [node for node in graph.nodes if node.target is target]


def fault_mode(fault: type[InjectedFault], name: str, what: str) -> Compiled:
    """Inductor with ``fault`` as its post-grad custom pass, a Mode named ``name``."""

    @contextlib.contextmanager
    def settings() -> Iterator[None]:
        with inductor_config.patch(post_grad_custom_post_pass=fault()):
            yield

    # What a repro script runs instead: the passes' own source, then the patch.
    setup = "\n".join(
        (
            "from torch._inductor.custom_graph_pass import CustomGraphPass",
            "",
            "",
            inspect.getsource(calls),
            inspect.getsource(InjectedFault),
            inspect.getsource(fault),
            f"torch._inductor.config.post_grad_custom_post_pass = {fault.__name__}()",
        )
    )
    return Compiled(
        name, f"Inductor with an injected fault: {what}", settings=settings, script_setup=setup
    )
