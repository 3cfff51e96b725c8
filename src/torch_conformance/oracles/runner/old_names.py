"""The public modules' names before the suite was one installed package
(``oracles.spec``, ``oracles.case``, ...): a spec file written against them
keeps working for one release, each old name a one-line
``DeprecationWarning`` that names the new import.

Only the public modules are mapped, and only while a spec loads through the
suite (``install``): nothing named ``oracles`` (nor ``kernels``, a package
of the index) is installed at top level.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
import types
import warnings
from collections.abc import Sequence

OLD = "oracles"
PUBLIC = (
    "spec", "case", "domain", "layouts", "properties", "recorded", "reference", "registry",
    "rows",
)  # fmt: skip


class _OldNames(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(
        self, name: str, path: Sequence[str] | None = None, target: types.ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if name == OLD or name.partition(".")[0] == OLD and name.partition(".")[2] in PUBLIC:
            return importlib.machinery.ModuleSpec(name, self, is_package=name == OLD)
        return None

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType:
        if spec.name == OLD:
            module = types.ModuleType(OLD, "the public modules' old names (deprecated)")
            module.__path__ = []
            return module
        new = f"torch_conformance.{spec.name.partition('.')[2]}"
        warnings.warn(
            f"`{spec.name}` is now `{new}`: import it from there "
            "(the old name goes in the next release)",
            DeprecationWarning,
            stacklevel=2,
        )
        return importlib.import_module(new)

    def exec_module(self, module: types.ModuleType) -> None:
        """The module is the new one, already run."""


_FINDER = _OldNames()


def install() -> None:
    """Map the old public names, from now on in this process."""
    if _FINDER not in sys.meta_path:
        sys.meta_path.append(_FINDER)
