"""What makes one compiled Mode differ from another, as data: its backend,
its Inductor config patch, the process state it needs, how it deploys; and
the settings every compiled run patches on top. A leaf: the compile
machinery (``compiled_program``, ``deployed_program``) and the Modes
(``compiled``) read it, and it reads none of them.
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any

from torch_conformance.oracles.core.devices import ANYWHERE
from torch_conformance.oracles.modes.deployment import Deployment


def _no_settings() -> AbstractContextManager[None]:
    return contextlib.nullcontext()


@dataclasses.dataclass(frozen=True)
class CompileSettings:
    """One compiled Mode's settings: a Dynamo backend (or a deployment) under
    one Inductor config patch."""

    name: str
    what: str  # what the Mode is, in words, for stage Findings and the reference pages
    backend: str = "inductor"
    config: tuple[tuple[str, Any], ...] = ()  # torch._inductor.config patch
    stage: int = 3  # order in the compiler stack: Dynamo 0, AOTAutograd 1-2, Inductor 3
    settings: Callable[[], AbstractContextManager[None]] = _no_settings  # process state it needs
    requires: Callable[[], str | None] = lambda: None  # why it cannot run here
    # The device types it makes sense on, and why not on the others.
    devices: tuple[str, ...] = ANYWHERE
    off_device: str = ""
    only_inexact: bool = False  # only for specs with bit_exact=False
    autograd_cache: bool = False  # AOTAutograd's cache on (as torch ships it)
    script_setup: str = ""  # what a repro script runs for ``settings``
    # deployed through torch.export (and AOTInductor) instead of
    # torch.compile (``oracles.modes.deployed_program``), or None
    deploy: Deployment | None = None


# The settings every compiled run patches, as (config module, key, value); a
# Mode's own patch of Inductor's config comes on top, and repro scripts set
# the same. size_asserts turns a wrong fake into an error rather than wrong
# values (unless the Mode turns it off). AOTAutograd's cache is off unless the
# Mode keeps it (``CompileSettings.autograd_cache``): it can serve a graph that an
# earlier compile specialized, so a verdict would depend on what ran before.
# torch raises on an undeclared output alias of a custom op only where the CI
# variable is set: the verdict must not depend on that, and the schema check
# reports it. Duck sizing would guard on equal sizes. Dynamo fails loudly at
# 16 recompiles of one program instead of falling back to eager; every program
# has its own code object, so the process-wide total is left to grow with the
# number of programs.
INDUCTOR_CONFIG = "torch._inductor.config"
FUNCTORCH_CONFIG = "torch._functorch.config"
RECOMPILE_LIMIT = 16
COMPILE_SETTINGS: tuple[tuple[str, str, Any], ...] = (
    (INDUCTOR_CONFIG, "size_asserts", True),
    (FUNCTORCH_CONFIG, "error_on_custom_op_aliasing", False),
    ("torch.fx.experimental._config", "use_duck_shape", False),
    ("torch._dynamo.config", "recompile_limit", RECOMPILE_LIMIT),
    ("torch._dynamo.config", "accumulated_recompile_limit", 1_000_000),
    ("torch._dynamo.config", "fail_on_recompile_limit_hit", True),
)


def settings_of(mode: CompileSettings) -> dict[str, dict[str, Any]]:
    """What a compiled run of ``mode`` patches, by config module."""
    patches: dict[str, dict[str, Any]] = {}
    for module, key, value in COMPILE_SETTINGS:
        patches.setdefault(module, {})[key] = value
    patches[INDUCTOR_CONFIG].update(mode.config)
    patches[FUNCTORCH_CONFIG]["enable_autograd_cache"] = mode.autograd_cache
    return patches
