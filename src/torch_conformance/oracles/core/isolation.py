"""A Case that may kill its process, run where it cannot take the run's
workers with it.

A Case a spec only infers the op accepts (a recording's Case that no
recorded call shows) may be one the kernel refuses by dying: a C kernel's
abort, a segfault past the end of a too-short argument. Such a Case is
first run in a forked child; a child that dies by a signal is a refusal (the
recording's edge), and the Case is never run in the worker itself.
"""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Callable

import torch

# How long a forked child may run before it is taken for stuck.
CHILD_SECONDS = 60


def killed_by(run: Callable[[], object]) -> str | None:
    """The signal that killed a forked child running ``run`` (its own
    exceptions are not a death), as ``SIGABRT``; None where it survived, or
    where this platform cannot fork."""
    if not hasattr(os, "fork"):
        return None
    child = os.fork()
    if child == 0:  # pragma: no cover - the child
        status = 0
        try:
            # As DataLoader's workers do: a forked child keeps off the parent's thread pool.
            torch.set_num_threads(1)
            run()
        except BaseException:  # noqa: BLE001 - a refusal by raising is no death
            status = 0
        finally:
            os._exit(status)
    deadline = time.monotonic() + CHILD_SECONDS
    while True:
        done, status = os.waitpid(child, os.WNOHANG)
        if done:
            break
        if time.monotonic() > deadline:
            # A child stuck on a lock a parent's thread held at the fork: no verdict.
            os.kill(child, signal.SIGKILL)
            os.waitpid(child, 0)
            return None
        time.sleep(0.002)
    if os.WIFSIGNALED(status):
        return signal.Signals(os.WTERMSIG(status)).name
    return None
