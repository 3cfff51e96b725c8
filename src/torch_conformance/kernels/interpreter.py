"""Triton's interpreter where no GPU can run Triton's kernels.

Triton reads ``TRITON_INTERPRET`` as it defines its kernels, its own
library's included, and torch's compiler imports Triton as it loads: so the
suite's entry points (``suites``, ``benchmarks``) call ``interpret_by_default``
before anything imports torch's compiler. It loads torch only where a GPU
driver is installed: a process that runs no test (the controller of a
parallel run) starts without it.
"""

from __future__ import annotations

import ctypes.util
import os

# The driver libraries of the GPUs torch's ``cuda`` device runs on (NVIDIA, AMD).
GPU_DRIVERS = ("cuda", "amdhip64")


def interpret_by_default() -> None:
    """Set ``TRITON_INTERPRET=1`` unless a GPU runs Triton (or it is set)."""
    if "TRITON_INTERPRET" in os.environ:
        return
    if any(ctypes.util.find_library(name) for name in GPU_DRIVERS):
        import torch

        if torch.cuda.is_available():
            return
    os.environ["TRITON_INTERPRET"] = "1"
