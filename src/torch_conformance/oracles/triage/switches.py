"""Switches: one compiler pass or subsystem turned off at a time, as
``torch._inductor.compiler_bisector.CompilerBisector`` turns off its
subsystems and config changes.

A compiled run with one switch thrown is a Compiled Mode of its own (the
switch's config patch on top of the Mode's, so it never shares a compiled
program with the Mode). Throwing each switch in turn finds the culprit of a
disagreement: the switches under which the program agrees with eager. A
known fault names its culprits (``oracles.triage.engine``); the stage at
fault names them for a new one.

``kind`` groups switches that answer the same question: Inductor's passes
(which pass?) or AOTAutograd's cache (is a cached graph to blame? its
control is the same compile afresh, cache on). A ``coarse`` switch turns off
so much (every lowering) that it undoes almost any Inductor fault: it counts
only where a fault names it.

Switches of a kind can be thrown ``together``, in one compile: a culprit's
"no other switch" half asks that first (``oracles.triage.engine``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

import torch._inductor.config as inductor_config

from torch_conformance.oracles.modes.compiled import Compiled

PASS = "pass"
CACHE = "cache"


@dataclasses.dataclass(frozen=True)
class Switch:
    name: str
    what: str  # what is off, in words: "Inductor's reinplacing of in-place ops"
    kind: str = PASS
    config: tuple[tuple[str, Any], ...] = ()  # torch._inductor.config patch
    autograd_cache: bool = True  # False: AOTAutograd's cache off
    coarse: bool = False

    def available(self, mode: Compiled) -> bool:
        """It can be thrown in ``mode``: this torch release has every config
        key it patches, and what it turns off is on in ``mode``."""
        keys = all(hasattr(inductor_config, key) for key, _ in self.config)
        return keys and (self.kind != CACHE or mode.autograd_cache)

    def mode(self, mode: Compiled) -> Compiled:
        """``mode`` with this switch thrown."""
        return dataclasses.replace(
            mode,
            name=f"{mode.name} with {self.what} off",
            config=(*mode.config, *self.config),
            autograd_cache=mode.autograd_cache and self.autograd_cache,
        )


def together(switches: Sequence[Switch]) -> Switch:
    """One switch that throws every switch of ``switches`` (one kind) at once."""
    assert len({s.kind for s in switches}) == 1, "switches of one kind are thrown together"
    if len(switches) == 1:
        return switches[0]
    config: dict[str, Any] = {}
    for key, value in (item for s in switches for item in s.config):
        # Inductor skips every pass whose name is in its comma-separated list.
        joined = key == "disabled_passes" and key in config
        config[key] = f"{config[key]},{value}" if joined else value
    return Switch(
        "+".join(s.name for s in switches),
        ", ".join(s.what for s in switches),
        kind=switches[0].kind,
        config=tuple(config.items()),
        autograd_cache=all(s.autograd_cache for s in switches),
    )


def _disabled(pass_name: str) -> tuple[tuple[str, Any], ...]:
    # Inductor skips a graph pass whose name is in disabled_passes.
    return (("disabled_passes", pass_name),)


SWITCHES: dict[str, Switch] = {
    switch.name: switch
    for switch in (
        Switch("reinplace", "Inductor's reinplacing of in-place ops",
               config=_disabled("reinplace_inplaceable_ops")),
        Switch("remove_noop_ops", "Inductor's removal of no-op ops",
               config=_disabled("remove_noop_ops")),
        Switch("pattern_matcher", "Inductor's pattern matcher",
               config=(("pattern_matcher", False),)),
        Switch("constant_folding", "Inductor's joint-graph constant folding",
               config=(("joint_graph_constant_folding", False),)),
        Switch("reorder_for_locality", "Inductor's reordering for locality",
               config=(("reorder_for_locality", False),)),
        Switch("fusion", "Inductor's fusion of kernels", config=(("max_fusion_size", 1),)),
        Switch("buffer_reuse", "Inductor's reuse of buffers in place",
               config=(("inplace_buffers", False), ("allow_buffer_reuse", False))),
        Switch("peak_memory", "Inductor's reordering for peak memory",
               config=(("reorder_for_peak_memory", False),)),
        Switch("layout_optimization", "Inductor's layout optimization",
               config=(("layout_optimization", False),)),
        Switch("padding", "Inductor's comprehensive padding",
               config=(("comprehensive_padding", False),)),
        Switch("lowerings", "Inductor's lowerings (every aten op falls back)",
               config=(("fallback_by_default", True),), coarse=True),
        Switch("autograd_cache", "AOTAutograd's cache", kind=CACHE, autograd_cache=False),
        # The control of the cache: the same compile afresh, nothing off.
        Switch("recompiled", "nothing (compiled afresh)", kind=CACHE),
    )
}  # fmt: skip
