"""Specs from a recording: one per recorded op, with no reference.

Every check that needs no reference applies to them (fake, schema, compiled
in each Mode, generated programs, crash isolation); the reference check only
asks that the op runs. A user who has a reference for a recorded op writes a
small spec file that calls :func:`recorded_spec` with it: that spec inherits
the recorded Cases, and the spec-less one of the same op steps aside.
"""

from __future__ import annotations

import functools
import os
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import torch

from torch_conformance.oracles.core.buffers import Case
from torch_conformance.oracles.core.devices import device_type
from torch_conformance.oracles.core.locations import PACKAGE
from torch_conformance.oracles.core.specification import Spec, SpecError
from torch_conformance.oracles.recording.calls import Recording, RecordingError
from torch_conformance.oracles.recording.cases import case_of, recorded_cases
from torch_conformance.oracles.recording.relations import parse, places, structure
from torch_conformance.oracles.runner import dependencies
from torch_conformance.oracles.runner.loading import import_registering

# Explicit examples per op: the most frequent recorded call of each structure.
MAX_EXAMPLES = 3


@functools.cache
def _load(path: Path) -> Recording:
    try:
        return Recording.load(path)
    except RecordingError as error:
        raise SpecError(str(error)) from None


def _preparer(recording: Recording, folder: Path) -> Any:
    @functools.cache
    def prepare() -> None:
        """Load what registered the recorded ops: their libraries, then their
        modules, from the folders the recording names (read against
        ``folder``, the recording's own), then the current one."""
        for library in recording.libraries:
            if library not in torch.ops.loaded_libraries and os.path.exists(library):
                torch.ops.load_library(library)
        for root in [*(str(folder / p) for p in recording.paths), os.getcwd()]:
            if root not in sys.path:
                sys.path.insert(0, root)
        for module in recording.imports:
            try:
                import_registering(module)
            except Exception as error:
                raise SpecError(
                    f"the recording names module {module!r} as registering its ops, and "
                    f"importing it failed ({error!r}): run from the folder it is imported "
                    "from, or record again with --import MODULE"
                ) from error

    return prepare


def _loadable(path: str | os.PathLike, recording: Recording) -> None:
    """Every recorded op is registered here once the recording's modules and
    libraries are loaded: else one error for the run, naming what would load it."""
    _preparer(recording, Path(path).resolve().parent)()
    missing = []
    for op in recording.checked:
        name, _, overload = op.partition(".")
        try:
            torch._C._dispatch_find_schema_or_throw(name, overload)
        except RuntimeError:
            missing.append(op)
    if missing:
        loaded = ", ".join([*recording.imports, *recording.libraries]) or "nothing"
        raise SpecError(
            f"{path}: {len(missing)} recorded op(s) are not registered here ({', '.join(missing)}) "
            f"after loading what the recording names ({loaded}): record again with --import "
            "MODULE (the module that registers them), or run from the folder MODULE is "
            "imported from (or put it on PYTHONPATH)"
        )


def _layout(case: Case) -> str:
    """What a Case asks of the op: its buffers and arguments, not its data."""
    return repr((case.buffers, case.args))


def spec_name(op: str) -> str:
    """``ns::name.overload`` as a spec name: ``ns.name.overload``."""
    return op.replace("::", ".")


def _beside(path: str | os.PathLike, caller: str | None) -> Path:
    """A relative recording path read against the folder of the spec file
    that names it (``caller``), as imports are; where no file lies there but
    one lies in the current folder, that one (how paths were read before)."""
    given = Path(path)
    if given.is_absolute() or caller is None or Path(caller).resolve().is_relative_to(PACKAGE):
        return given
    beside = Path(caller).resolve().parent / given
    return given if not beside.exists() and given.exists() else beside


def recorded_spec(
    path: str | os.PathLike,
    op: str,
    *,
    relations: Sequence[str] = (),
    resize: bool = True,
    **fields: Any,
) -> Spec:
    """A spec of recorded op ``op`` (``ns::name``) with the Cases of the
    recording at ``path`` (a relative path is read against the folder of the
    spec file that calls this); ``fields`` (a ``reference``, ``ulp_budget``,
    ``name``, ...) override the spec-less defaults.

    Drawn Cases keep every Relation between the arguments that held in all the
    recorded calls, and ``relations``, ties the calls did not show, written as
    ``"x.shape[1] == group_size * scale.shape[1]"`` (see
    ``oracles.recording.relations``). ``resize`` False keeps every recorded
    size: Cases vary only offsets and spare elements."""
    path = _beside(path, sys._getframe(1).f_globals.get("__file__"))
    recording = _load(Path(path).resolve())
    recorded = recording.checked
    if op not in recorded:
        known = ", ".join(sorted(recorded)) or "none"
        raise SpecError(f"{path}: op {op!r} was not recorded (recorded: {known})")
    calls = [call for call in recorded[op].calls if not call.unsupported()]
    if not calls:
        why = "; ".join(recorded[op].calls[0].unsupported())
        raise SpecError(f"{path}: no call of {op} can be replayed (arguments {why})")
    # The most frequent call of each structure, as the program made it.
    firsts: dict[Any, Any] = {}
    for call in calls:
        firsts.setdefault(structure(call), call)
    structures = tuple(case_of(call) for call in firsts.values())
    shown = {_layout(case_of(call)) for call in calls}
    defaults: dict[str, Any] = {
        "name": spec_name(op),
        "op": op,
        "cases": recorded_cases(
            calls, [parse(r, {p for c in calls for p in places(c)}) for r in relations], resize
        ),
        "reference": None,
        "families": ("recorded",),
        "examples": structures[:MAX_EXAMPLES],
        "structures": structures,
        "prepare": _preparer(recording, Path(path).resolve().parent),
        # Where the op was seen to run: a call recorded on CUDA replays there.
        "devices": tuple(sorted({device_type(call.device) for call in calls})),
        # A Case of the user's own strategy is one the op must take.
        "inferred": None if "cases" in fields else lambda case: _layout(case) not in shown,
    }
    return Spec(**(defaults | fields))


def recorded_specs(path: str | os.PathLike, skip: Iterable[str] = ()) -> list[Spec]:
    """A spec-less Spec for every replayable op of the recording at ``path``,
    but those of ``skip`` (ops a user's spec covers)."""
    recording = _load(Path(path).resolve())
    _loadable(path, recording)
    # What a verdict of these specs depends on: the recording, and its modules.
    dependencies.LOADED[str(path)] = dependencies.user_modules(recording.imports)
    skipped = set(skip)
    specs = []
    for op, recorded in sorted(recording.checked.items()):
        if op in skipped or op.removesuffix(".default") in skipped:
            continue
        if all(call.unsupported() for call in recorded.calls):
            continue
        specs.append(recorded_spec(path, op))
    if not specs:
        raise SpecError(f"{path}: the recording holds no call a Case can replay")
    return specs
