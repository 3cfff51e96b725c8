"""Record the calls a program makes to a namespace's ops:

    torch-conformance record NAMESPACE[,NAMESPACE] --out calls.json -- python my_model.py [args]
    torch-conformance record NAMESPACE --out calls.json -- python -m my_package.serve [args]
    torch-conformance record NAMESPACE --out calls.json -- pytest tests/ [args]

The command runs in this process (pytest with ``-n 0``: calls made in other
processes are not seen), eagerly: under ``torch.compile`` the ops run
on fake tensors, which are not recorded. Then ``pytest --specs-from=calls.json``
checks every recorded op. The recording holds no tensor data.
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib.util
import os
import runpy
import sys
from collections.abc import Sequence
from pathlib import Path

from torch_conformance.oracles.recording.calls import Recording
from torch_conformance.oracles.recording.recorder import recording
from torch_conformance.oracles.runner.loading import IMPORT_OPTION


class CommandError(ValueError):
    """The command is not one the recorder can run in its process."""


def run_command(command: Sequence[str]) -> int:
    """Run ``python SCRIPT``, ``python -m MODULE`` or ``pytest`` here, as their
    own command lines would; their exit status."""
    if not command:
        raise CommandError("no command to record: give one after --")
    program, *rest = command
    name = Path(program).name
    if name.startswith("python"):
        if rest[:1] == ["-m"] and len(rest) > 1:
            target, argv, run = rest[1], [rest[1], *rest[2:]], "module"
        elif rest and not rest[0].startswith("-"):
            target, argv, run = rest[0], rest, "path"
        else:
            raise CommandError(f"cannot record `{' '.join(command)}`: give a script or -m MODULE")
    elif name in ("pytest", "py.test"):
        # Workers are other processes, whose calls the recorder cannot see:
        # -n 0 last overrides any -n of the command or its configuration.
        workers = ["-n", "0"] if importlib.util.find_spec("xdist") is not None else []
        target, argv, run = "pytest", ["pytest", *rest, *workers], "module"
    else:
        raise CommandError(
            f"cannot record `{program}`: the recorder runs Python in its own process; "
            "give `python SCRIPT ...`, `python -m MODULE ...` or `pytest ...`"
        )
    if run == "path" and not Path(target).is_file():
        raise CommandError(f"cannot record `{' '.join(command)}`: no script {target}")
    if run == "module" and target != "pytest" and not _findable(target):
        raise CommandError(f"cannot record `{' '.join(command)}`: no module {target}")
    saved_argv, saved_path = sys.argv, list(sys.path)
    sys.argv = argv
    sys.path.insert(0, str(Path(target).resolve().parent) if run == "path" else os.getcwd())
    try:
        if run == "path":
            runpy.run_path(target, run_name="__main__")
        else:
            runpy.run_module(target, run_name="__main__", alter_sys=True)
    except SystemExit as exit_:
        code = exit_.code
        return code if isinstance(code, int) else (0 if code is None else 1)
    finally:
        sys.argv, sys.path[:] = saved_argv, saved_path
    return 0


def import_paths(modules: Sequence[str], out: Path) -> tuple[str, ...]:
    """The folders ``modules`` were imported from (where ``python -m`` and
    ``import`` find them), relative to ``out``'s folder where they lie in it:
    a recording beside its program travels with it."""
    here = out.resolve().parent
    found: list[str] = []
    for name in modules:
        module = sys.modules.get(name.partition(":")[0])
        file = getattr(module, "__file__", None)
        if module is None or file is None:
            continue
        parts = module.__name__.split(".")
        path = Path(file).resolve()
        root = path.parents[len(parts) - (0 if path.name == "__init__.py" else 1)]
        folder = str(root.relative_to(here)) if root.is_relative_to(here) else str(root)
        if folder not in found:
            found.append(folder)
    return tuple(found)


def _findable(module: str) -> bool:
    """``python -m module`` would find it, from the current folder."""
    sys.path.insert(0, os.getcwd())
    try:
        return importlib.util.find_spec(module) is not None
    except ImportError:  # its parent package is missing
        return False
    finally:
        sys.path.pop(0)


def summary(found: Recording, out: Path) -> str:
    lines = [f"recorded {len(found.ops)} op(s) into {out}:"]
    for name, op in sorted(found.ops.items()):
        unsupported = {u for call in op.calls for u in call.unsupported()}
        note = f"; not replayable: {', '.join(sorted(unsupported))}" if unsupported else ""
        registered = f"; its fake: {op.registration}" if op.registration else ""
        lines.append(f"  {name}: {op.count} call(s), {len(op.calls)} distinct{registered}{note}")
    if not found.ops:
        lines.append("  no call of these namespaces' ops: did the command run them eagerly?")
    for ops, what in (
        (
            found.composite,
            "that decompose (CompositeImplicitAutograd), recorded from Python: checked "
            "by what they decompose into (the compiled and programs checks; their fake "
            "and schema hold by construction)",
        ),
        (
            found.above,
            "whose kernel above the dispatcher's Python key (an autograd kernel) calls "
            "other ops, recorded from Python: checked as called, their own kernels unseen",
        ),
    ):
        if ops:
            lines.append(f"and {len(ops)} op(s) {what}:")
            lines += [
                f"  {name}: {op.count} call(s), {len(op.calls)} distinct"
                for name, op in sorted(ops.items())
            ]
    if found.left_out:
        lines.append("calls left out (not replayable as recorded):")
        lines += [
            f"  {name}: {count} call(s) {why}"
            for name, reasons in sorted(found.left_out.items())
            for why, count in sorted(reasons.items())
        ]
    if found.ops and not found.imports and not found.libraries:
        lines.append(
            "no module or library that registers these ops was found: record again with "
            "--import MODULE (the module that registers them), or the checks cannot load them"
        )
    lines.append(f"check them: torch-conformance check --specs-from={out}")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    command: list[str] = []
    if "--" in argv:
        at = argv.index("--")
        argv, command = argv[:at], argv[at + 1 :]
    parser = argparse.ArgumentParser(
        prog="torch-conformance record",
        description="Record every call of a namespace's ops while a command runs.",
        usage="%(prog)s NAMESPACE[,NAMESPACE] --out FILE [--import MODULE] -- COMMAND ...",
    )
    parser.add_argument("namespaces", help="the op namespaces, comma-separated")
    parser.add_argument("--out", type=Path, required=True, help="the recording to write (JSON)")
    parser.add_argument(
        "--import",
        **IMPORT_OPTION,
        help="a module that registers the ops' fakes or kernels, for the checks to import "
        "(and FUNCTION of it to call, where a function registers them); found by itself "
        "where a fake is registered on import of an importable module",
    )
    options = parser.parse_args(argv)
    namespaces = [n for n in options.namespaces.split(",") if n]
    try:
        with recording(namespaces) as recorder:
            status = run_command(command)
    except CommandError as error:
        parser.error(str(error))
    found = recorder.recording(command, options.modules)
    found = dataclasses.replace(found, paths=import_paths(found.imports, options.out))
    found.save(options.out)
    print(summary(found, options.out), file=sys.stderr)
    return status


if __name__ == "__main__":
    sys.exit(main())
