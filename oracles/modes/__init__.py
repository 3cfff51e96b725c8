"""Execution: the Modes a Case runs in, and the compiled programs they key.

``mode`` holds the one ``run`` signature; ``eager`` and ``fake`` run the op
(or the Case's program) without compiling; ``compiled`` holds the compiled
Modes (``COMPILED``) and the stages before Inductor (``STAGES``); ``cache``
the compiled programs, which count what really ran, and Inductor's caches;
``signature`` what a compiled program specializes on; ``programs`` the code
around the op; ``triton_cpu`` Inductor's Triton backend on the CPU.
"""

from oracles.modes.compiled import (
    AOT_EAGER,
    AOT_EAGER_DECOMP_PARTITION,
    COMPILED,
    DYNAMO,
    INDUCTOR,
    STAGES,
    Compiled,
)
from oracles.modes.eager import EAGER, Eager
from oracles.modes.fake import FAKE, Fake
from oracles.modes.mode import Mode

__all__ = [
    "AOT_EAGER",
    "AOT_EAGER_DECOMP_PARTITION",
    "COMPILED",
    "DYNAMO",
    "EAGER",
    "FAKE",
    "INDUCTOR",
    "STAGES",
    "Compiled",
    "Eager",
    "Fake",
    "Mode",
]
