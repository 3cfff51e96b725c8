"""Known compiler faults, matched on evidence specific to each, and the
stage at fault.

``faults`` (the known faults, loaded from ``upstream/known_faults.json``
and checked), ``engine`` (triage: a disagreement matched against them),
``predictions`` (what a fault makes a compiled program compute),
``gradients`` (faults of a compiled backward), ``interpreter`` (what
Triton's interpreter, not the kernel, explains), ``switches`` (one pass or
subsystem off at a time) and ``stage`` (which stage first disagrees).
"""
