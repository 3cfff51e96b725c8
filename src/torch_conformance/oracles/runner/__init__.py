"""Running a check: the Hypothesis property over a spec's Cases, and what
it needs.

``property`` (a check run as a property: draw, judge, search, finish,
write the repro), ``failures`` (which failures are distinct bugs),
``tally`` (what a run judged and compiled), ``budgets`` (its settings and
shrinking time), ``draws`` (the same Cases whatever ran before),
``replay`` (a failure's Cases saved to run again), ``loading`` (spec
modules, each validated), ``dependencies`` (what a verdict depends on,
as the key the verdict store keeps it under), ``old_names`` (the public modules' names before
the suite was one package, deprecated).
"""
