"""The registry lint from the command line (see ``oracles.lint``)::

    torch-conformance lint NAMESPACE [NAMESPACE ...] [--specs PATH_OR_MODULE]
                          [--specs-from RECORDING] [--import MODULE] [--json PATH]

It loads the ops first, only those of the namespaces it lints: ``--import``
imports modules that register ops (a kernel library's Python package, found
as ``python -m`` finds modules: from the current directory, then
``PYTHONPATH``), and every Spec of ``--specs`` (default: those of the
built-in catalog and zoo in the namespaces) is prepared, which loads its op
and gives the lint valid Cases to run the kernel on; so is every op of a
``--specs-from`` recording (``torch-conformance record``), whose recorded
calls are inputs the op's kernel and fake are known to take. Exit status 1
when any op has a blocking problem, else 0.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from torch_conformance.oracles.core.specification import Spec, SpecError, Unavailable
from torch_conformance.oracles.core.verdicts import IMPLICIT_FALLBACK as IMPLICIT
from torch_conformance.oracles.lint.lint import OpLint, lint
from torch_conformance.oracles.runner.loading import IMPORT_OPTION, import_registering, load_specs
from torch_conformance.suites.catalog import builtin_specs, specs_of


def prepared_specs(
    targets: Sequence[str], recordings: Sequence[str] = (), namespaces: Sequence[str] = ()
) -> tuple[list[Spec], list[str]]:
    """The specs of ``targets`` and ``recordings`` (default: those of the
    catalog and zoo in ``namespaces``) whose prepare ran, and a note for each
    that could not be prepared."""
    specs = [s for t in targets for s in load_specs(t)]
    if recordings:
        from torch_conformance.oracles.recording.specs import recorded_specs

        covered = {s.op for s in specs if isinstance(s.op, str)}
        specs += [s for r in recordings for s in recorded_specs(r, skip=covered)]
    elif not targets:
        # Only what is linted is loaded: building every family's kernels for
        # another library's namespace took minutes.
        specs = [s for s in builtin_specs() + specs_of("zoo") if s.namespace in namespaces]
    ready, notes = [], []
    for spec in specs:
        try:
            if spec.prepare is not None:
                spec.prepare()
            spec.overload  # noqa: B018  (a name that resolves to no op raises here)
        except Unavailable as error:
            notes.append(f"spec {spec.name!r} skipped: {error}")
            continue
        except Exception as error:  # one bad spec must not stop the lint of the rest
            notes.append(f"spec {spec.name!r} could not be prepared: {error!r}")
            continue
        ready.append(spec)
    return ready, notes


def exclusions(pairs: Sequence[str], files: Sequence[Path]) -> dict[str, str]:
    """Out-of-scope ops and why, from ``OP=REASON`` options and ``OP = REASON`` lines."""
    lines = [line.split("#", 1)[0] for path in files for line in path.read_text().splitlines()]
    found = {}
    for entry in [*pairs, *lines]:
        if not entry.strip():
            continue
        op, sign, reason = entry.partition("=")
        if not sign or not op.strip() or not reason.strip():
            raise ValueError(f"an exclusion is `OP = REASON`, got {entry!r}")
        found[op.strip()] = reason.strip()
    return found


def render(results: dict[str, list[OpLint]], verbose: bool = False) -> str:
    """The lint's findings, one block per namespace, fit for a terminal;
    ``verbose``: with the schema-derived inputs each fake refused."""
    lines = []
    for namespace, ops in results.items():
        errors = sum(len(op.errors) for op in ops)
        lines.append(f"{namespace}: {len(ops)} op(s), {errors} error(s)")
        if not ops:
            lines.append(
                f"  error: no op of {namespace!r} was linted, so the lint proves nothing of it: "
                "load the library or module that registers them (--import MODULE)"
            )
        for op in ops:
            lines.append(
                f"  {op.op}: {op.fake or 'no fake'}, {op.lowering}; checked on {op.checked}"
            )
            if verbose:
                lines += [f"    tried and discarded: {d}" for d in op.discarded]
            if op.excluded is not None:
                lines.append(f"    out of scope: {op.excluded} (its problems block nothing)")
            for problem in op.problems:
                if problem.verdict != IMPLICIT:
                    level = "error" if problem in op.errors else "note"
                    lines.append(f"    {level} [{problem.verdict}] {problem.message}")
        implicit = [op for op in ops if any(p.verdict == IMPLICIT for p in op.problems)]
        if implicit:
            lines.append(
                f"  note [{IMPLICIT}] {len(implicit)} op(s) would fall back to their kernels "
                "implicitly (no make_fallback is registered): call torch_conformance.registry."
                f"register_fallbacks({namespace!r}) after setting the compile configuration"
            )
    return "\n".join(lines)


def to_json(results: dict[str, list[OpLint]], notes: Sequence[str]) -> dict:
    return {
        "notes": list(notes),
        "namespaces": {
            namespace: [
                dataclasses.asdict(op)
                | {
                    "problems": [
                        {"code": p.verdict, "message": p.message, "blocking": p.blocking}
                        for p in op.problems
                    ]
                }
                for op in ops
            ]
            for namespace, ops in results.items()
        },
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="torch-conformance lint", description=__doc__.split("\n")[0]
    )
    parser.add_argument("namespaces", nargs="+", metavar="NAMESPACE")
    parser.add_argument("--specs", action="append", default=[], metavar="PATH_OR_MODULE")
    parser.add_argument("--specs-from", action="append", default=[], metavar="RECORDING")
    parser.add_argument(
        "--import",
        **IMPORT_OPTION,
        help="import a module that registers ops (and call FUNCTION of it, for a library "
        "that registers its ops when a function is called)",
    )
    parser.add_argument("--json", type=Path, metavar="PATH", help="also write the findings here")
    parser.add_argument(
        "--exclude",
        action="append",
        default=[],
        metavar="OP=REASON",
        help="keep OP (ns::name) in the report as out of scope, for REASON (an op never "
        "traced, such as weight prepacking): its problems block nothing",
    )
    parser.add_argument(
        "--exclude-file",
        type=Path,
        action="append",
        default=[],
        metavar="PATH",
        help="exclusions, one `OP = REASON` a line (# comments)",
    )
    parser.add_argument(
        "--verbose",
        action="store_true",
        help="also list the schema-derived inputs each fake refused, and how (the JSON "
        "always has them)",
    )
    options = parser.parse_args(argv)
    try:
        excluded = exclusions(options.exclude, options.exclude_file)
    except ValueError as error:
        parser.error(str(error))
    for module in options.modules:
        import_registering(module)
    try:
        specs, notes = prepared_specs(options.specs, options.specs_from, options.namespaces)
    except SpecError as error:
        parser.error(str(error))
    only = None
    if options.specs_from and not options.specs:
        # What the program never called is not linted: its fakes may live in
        # modules the recorded program never imported.
        only = {spec.op for spec in specs if isinstance(spec.op, str)}
        notes.append(
            "linting only the recorded ops: ops the program never called may have fakes "
            "in modules it never imported (lint them with --import MODULE)"
        )
    results = lint(options.namespaces, specs, only)
    linted = {op.op for ops in results.values() for op in ops}
    unknown = sorted(set(excluded) - linted)
    if unknown:
        parser.error(f"--exclude names {', '.join(unknown)}, which the lint does not lint")
    results = {
        namespace: [dataclasses.replace(op, excluded=excluded.get(op.op)) for op in ops]
        for namespace, ops in results.items()
    }
    for note in notes:
        print(note)
    print(render(results, options.verbose))
    if options.json is not None:
        options.json.write_text(json.dumps(to_json(results, notes), indent=1))
    # A lint that checked no op of a namespace proves nothing of it.
    empty = any(not ops for ops in results.values())
    return 1 if empty or any(op.errors for ops in results.values() for op in ops) else 0


if __name__ == "__main__":
    sys.exit(main())
