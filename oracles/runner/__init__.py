"""Running a check: the Hypothesis property over a spec's Cases, and what
it needs.

``property`` (a check run as a property: draw, judge, shrink, finish,
write the repro), ``budgets`` (its settings and shrinking time),
``draws`` (the same Cases whatever ran before), ``edges`` (a Case a
recording only infers, which the op refuses), ``replay`` (a failure's
Cases saved to run again), ``loading`` (spec modules, each validated).
"""
