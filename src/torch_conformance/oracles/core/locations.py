"""Where the suite reads and writes: its own files inside the installed
package (read only), the user's cache folder (C++ builds, Inductor's
caches), and the current folder (reports and repros).

Nothing is ever written inside the package: an installed suite may lie in
a read-only environment, and one environment serves many projects.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

# The installed package: its kernels' sources, the fault scripts, the catalog.
PACKAGE = Path(__file__).resolve().parents[2]
# The environment variable that names the cache folder.
CACHE_VARIABLE = "TORCH_CONFORMANCE_CACHE"
# What a run writes, under the current folder unless told otherwise.
OUTPUT = Path("conformance-out")


def cache_root() -> Path:
    """The user's cache folder for the suite: ``$TORCH_CONFORMANCE_CACHE``,
    else ``torch-conformance`` in ``$XDG_CACHE_HOME`` or the platform's
    cache folder (``~/.cache`` on Linux, ``~/Library/Caches`` on macOS,
    ``%LOCALAPPDATA%`` on Windows)."""
    named = os.environ.get(CACHE_VARIABLE)
    if named:
        return Path(named).expanduser()
    if os.environ.get("XDG_CACHE_HOME"):
        base = Path(os.environ["XDG_CACHE_HOME"])
    elif sys.platform == "darwin":
        base = Path.home() / "Library" / "Caches"
    elif sys.platform == "win32" and os.environ.get("LOCALAPPDATA"):
        base = Path(os.environ["LOCALAPPDATA"])
    else:
        base = Path.home() / ".cache"
    return base / "torch-conformance"
