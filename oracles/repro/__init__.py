"""Standalone repro scripts for a Case that fails a check.

``write_repro`` writes a Python script for one failing Case. The script
rebuilds the Case's buffers (same shapes, dtypes, fills and seed, so the same
values) and its argument views as plain torch calls, runs the op the way the
check did (eagerly, under FakeTensor, or compiled by Inductor, once per batch
with dynamic shapes where the check batched), judges it with the suite's own
verdicts, prints their Findings, and exits 1 while the bug is there and 0 when
everything agrees.

The script imports plain torch and whatever loads the op, never the suite:
the code it runs (the suite's verdicts, the spec's program, the op's fake,
the reference and the helpers they call) is copied into it from its source,
so it can be pasted into an upstream bug report. Code whose source cannot be
recovered makes the script stop at once with a ``SystemExit`` naming what is
missing, never run something else.

The modules: ``values`` (values and views as Python), ``source`` (the text
of functions and classes), ``inliner`` (copying them with their helpers),
``loading`` (the op and its fake), ``cases`` (the Case's buffers and views),
``checks`` (what each check runs) and ``script`` (the whole script).
"""

from oracles.repro.script import CHECKS, render_repro, write_repro
from oracles.repro.values import ReproError, literal, view_expression, view_ranks

__all__ = [
    "CHECKS",
    "ReproError",
    "literal",
    "render_repro",
    "view_expression",
    "view_ranks",
    "write_repro",
]
