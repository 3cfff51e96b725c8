"""What the checks share: how a check is described, the runs they judge and
the Verdicts several of them give, and what their repro scripts run.

``check`` (``Check``: a check as data, and the hooks the runner calls);
``common_findings`` (a crash, a missing fake, the eager run against the
float64 reference, a schema torch.compile cannot compile); ``edges`` (a
Case a recording only infers, which the op refuses);
``differential`` (the Case's program eagerly and compiled, compared) and
``differential_script`` (its repro script); ``gradient_runs`` (the eager
and compiled backwards run), ``gradient_verdicts`` (their gradients
judged) and ``gradient_scripts`` (their repro scripts); ``script_drivers``
(``Script``: what every check's repro script runs). No check imports
another check: what two share lives here.
"""
