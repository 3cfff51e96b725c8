"""``torch-conformance`` (or ``python -m torch_conformance``): one command for
each job a user runs, from any folder, relative paths read against it::

    torch-conformance record NAMESPACE --out calls.json -- python my_model.py
    torch-conformance check [--specs=my_specs.py] [--specs-from=calls.json] [pytest options]
    torch-conformance lint NAMESPACE [--specs-from=calls.json]
    torch-conformance replay FILE.cases [--specs=my_specs.py] [pytest options]
    torch-conformance diff OLD.json NEW.json

``check`` runs the suite's checks alone (none of the project's own tests)
through pytest, on the specs and recordings given, else on the built-in
catalog; ``pytest --specs=...`` runs the same checks beside the project's
tests. ``replay`` reruns exactly the Cases of a failure.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence

USAGE = __doc__.split("::")[1].rstrip().split("\n\n")[0] if __doc__ else ""
_SOURCES = ("--specs", "--specs-from", "--spec", "--catalog")


def _check(argv: Sequence[str]) -> int:
    import pytest

    named = any(a.split("=")[0] in _SOURCES for a in argv)
    catalog = [] if named else ["--catalog"]
    # This package is imported already: pytest need not rewrite its asserts.
    quiet = ["-W", "ignore::pytest.PytestAssertRewriteWarning"]
    return int(pytest.main(["--conformance-only", *catalog, *quiet, *argv]))


def _replay(argv: Sequence[str]) -> int:
    if not argv or argv[0].startswith("-"):
        print("torch-conformance replay: give the .cases file a failure printed", file=sys.stderr)
        return 2
    return _check([f"--replay={argv[0]}", "-n", "0", *argv[1:]])


def _record(argv: Sequence[str]) -> int:
    from torch_conformance.suites.record import main

    return main(argv)


def _lint(argv: Sequence[str]) -> int:
    from torch_conformance.suites.lint import main

    return main(argv)


def _diff(argv: Sequence[str]) -> int:
    from torch_conformance.reports.diff import main

    return main(argv)


COMMANDS: dict[str, Callable[[Sequence[str]], int]] = {
    "record": _record,
    "check": _check,
    "lint": _lint,
    "replay": _replay,
    "diff": _diff,
}


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] in ("-h", "--help") or args[0] not in COMMANDS:
        known = "" if not args or args[0] in ("-h", "--help") else f"no command {args[0]!r}; "
        print(f"torch-conformance: {known}usage:\n{USAGE}", file=sys.stderr)
        return 0 if args[:1] in (["-h"], ["--help"]) else 2
    return COMMANDS[args[0]](args[1:])
