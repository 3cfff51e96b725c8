"""The vocabulary: what every other subpackage speaks, importing nothing
else of the suite.

``case`` (Case, its buffers and views), ``views`` (the view operations),
``spec`` (Spec), ``calls`` (how a program calls the op), ``schema`` (what
torch's registry says of an op), ``signature`` (what a compiled program
specializes on), ``observation`` (one run of a Case), ``findings``
(Finding, and how an error reads in one), ``verdicts`` (every kind of
Finding), ``program`` (generated model code as data), ``reference``
(float64 references and ULPs), ``gradients`` (upstream gradients and a
program's gradients), ``domain`` (a kernel's declared domain), ``meter``
(what a process has compiled), ``devices`` (the device a run's Cases live on).
"""
