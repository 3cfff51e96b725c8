"""Standalone repro scripts for a Case that fails a check.

``script.write_repro`` writes a Python script for one failing Case. The
script rebuilds the Case's buffers (same shapes, dtypes, fills and seed, so
the same values) and its argument views as plain torch calls, runs the op
the way the check did (eagerly, under FakeTensor, or compiled, once per
batch with dynamic shapes where the check batched), judges it with the
suite's own comparisons, prints their Findings, and exits 1 while the bug is
there and 0 when everything agrees.

The script imports plain torch and whatever loads the op, never the suite:
the code it runs (the suite's comparisons, the spec's program, the op's
fake, the reference and the helpers they call) is copied into it from its
source, so it can be pasted into an upstream bug report. Code whose source
cannot be recovered makes the script stop at once, naming what is missing,
with exit status 2 (1 is only "the bug is still there"), never run
something else.

The modules: ``values`` (values as Python), ``source`` (the text of
functions and classes), ``inliner`` (copying them with their helpers),
``loading`` (the op and its fake), ``cases`` (the Case's buffers and views)
and ``script`` (the whole script). What each check's script runs is the
check's own driver (``oracles.judging.script_drivers``).
"""
