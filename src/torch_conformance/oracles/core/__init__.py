"""The vocabulary: what every other subpackage speaks, importing nothing
else of the suite.

``buffers`` (Case, its buffers and views), ``views`` (the view operations),
``specification`` (Spec), ``calls`` (how a program calls the op), ``schema`` (what
torch's registry says of an op), ``signature`` (what a compiled program
specializes on), ``observation`` (one run of a Case), ``findings``
(Finding, and how an error reads in one), ``verdicts`` (every kind of
Finding), ``program`` (generated model code as data), ``expectation``
(float64 references and ULPs), ``gradients`` (tangents and a
program's gradients), ``kernel_domain`` (a kernel's declared domain), ``meter``
(what a process has compiled), ``devices`` (the device a run's Cases live on),
``isolation`` (a Case that may kill its process, run in a forked child),
``locations`` (where the suite reads and writes: its package, the cache folder).
"""
