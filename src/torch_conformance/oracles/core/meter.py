"""What a process has compiled: the one count of compiles and of compiled
programs that every report of cost reads.

The compiled-program cache adds to it (``oracles.modes.cache``); a run's
tally takes the difference around what it judged.
"""

from __future__ import annotations

import dataclasses


@dataclasses.dataclass
class Meter:
    programs: int = 0  # compiled programs made, fresh ones included
    compiles: int = 0  # their compiles: graphs handed to a backend, or exports


SPENT = Meter()


def spent() -> tuple[int, int]:
    """What this process has compiled so far: (compiles, compiled programs)."""
    return SPENT.compiles, SPENT.programs
