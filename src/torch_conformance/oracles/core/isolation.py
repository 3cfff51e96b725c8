"""A Case that may kill its process, run where it cannot take the run's
workers with it.

A Case a spec only infers the op accepts (a recording's Case that no
recorded call shows) may be one the kernel refuses by dying: a C kernel's
abort, a segfault past the end of a too-short argument. Such a Case is
first run in a forked child; a child that dies by a signal is a refusal (the
recording's edge), and the Case is never run in the worker itself.

A fork of a worker costs tens of milliseconds, and a spec-less run infers
thousands of Cases, so one forked child (a ``Prober``) runs a spec's Cases
one after another, and a fresh child is forked only after a death: a death
is then confirmed in a child of its own, since what ran before it in the
prober may have left it in a state of its own.
"""

from __future__ import annotations

import faulthandler
import os
import pickle
import signal
import time
from collections.abc import Callable
from multiprocessing.connection import Connection, Pipe
from typing import Generic, TypeVar

import torch

# How long a forked child may run one probe before it is taken for stuck.
CHILD_SECONDS = 60

Item = TypeVar("Item")


def _forked(body: Callable[[], object]) -> int:
    """The pid of a forked child that runs ``body`` and exits 0 (its own
    exceptions are no death)."""
    child = os.fork()
    if child == 0:  # pragma: no cover - the child
        try:
            # Its death is the verdict: no dump of its stack beside it.
            faulthandler.disable()
            # As DataLoader's workers do: a forked child keeps off the parent's thread pool.
            torch.set_num_threads(1)
            body()
        except BaseException:  # noqa: BLE001 - a refusal by raising is no death
            pass
        finally:
            os._exit(0)
    return child


def _signal(status: int) -> str | None:
    return signal.Signals(os.WTERMSIG(status)).name if os.WIFSIGNALED(status) else None


def killed_by(run: Callable[[], object]) -> str | None:
    """The signal that killed a forked child running ``run``, as ``SIGABRT``;
    None where it survived, or where this platform cannot fork."""
    if not hasattr(os, "fork"):
        return None
    child = _forked(run)
    deadline = time.monotonic() + CHILD_SECONDS
    while True:
        done, status = os.waitpid(child, os.WNOHANG)
        if done:
            return _signal(status)
        if time.monotonic() > deadline:
            # A child stuck on a lock a parent's thread held at the fork: no verdict.
            _kill(child)
            return None
        time.sleep(0.002)


def _kill(child: int) -> None:
    os.kill(child, signal.SIGKILL)
    os.waitpid(child, 0)


class Prober(Generic[Item]):
    """``run`` on items one after another in one forked child, forked at the
    first probe; a death ends it, and the next probe forks another."""

    def __init__(self, run: Callable[[Item], object]):
        self.run = run
        self._child: tuple[int, Connection] | None = None

    def killed_by(self, item: Item) -> str | None:
        """The signal that killed a fresh child running ``item``; None where
        it survived, where it was stuck, or where this platform cannot fork."""
        if not hasattr(os, "fork"):
            return None
        try:
            request = pickle.dumps(item)
        except Exception:  # noqa: BLE001 - an item of its own kind: a child of its own
            return killed_by(lambda: self.run(item))
        child, connection = self._child or self._start()
        try:
            connection.send_bytes(request)
            if connection.poll(CHILD_SECONDS):
                connection.recv_bytes()
                return None
        except (EOFError, OSError):
            pass
        # It died (or is stuck): confirmed in a child of its own.
        self.close()
        return killed_by(lambda: self.run(item))

    def _start(self) -> tuple[int, Connection]:
        mine, theirs = Pipe()

        def serve() -> None:
            mine.close()
            while True:
                try:
                    item = pickle.loads(theirs.recv_bytes())
                except EOFError:  # the worker is gone
                    return
                try:
                    self.run(item)
                except BaseException:  # noqa: BLE001, S110 - a refusal by raising is no death
                    pass
                theirs.send_bytes(b"")

        child = _forked(serve)
        theirs.close()
        self._child = (child, mine)
        return self._child

    def close(self) -> None:
        """End the child, if one runs."""
        if self._child is not None:
            child, connection = self._child
            self._child = None
            connection.close()
            if os.waitpid(child, os.WNOHANG)[0] == 0:
                _kill(child)
