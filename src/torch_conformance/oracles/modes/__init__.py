"""Execution: the Modes a Case runs in, and the compiled programs they key.

``mode`` holds the one ``run`` signature; ``eager`` and ``fake`` run the op
(or the Case's program) without compiling, and ``isolated`` runs it in a
forked child; ``compiled`` holds the compiled
Modes (``COMPILED``) and the stages before Inductor (``STAGES``);
``compile_settings`` what makes one compiled Mode differ from another, as
data; ``compiled_program`` what a compiled program proves, and
``deployed_program`` what a deployed one does, in the ways ``deployment``
names; ``cache`` the compiled programs of a run and Inductor's caches;
``programs`` the code around the op and ``scale_op`` the second mutating op
it may call; ``injected`` the base of injected compiler faults;
``triton_cpu`` Inductor's Triton backend on the CPU, and ``interpreter``
Triton's interpreter, known-answer tested.

This package's own module imports nothing: a run that compiles nothing does
not load torch's compiler.
"""
