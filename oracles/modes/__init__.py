"""Execution: the Modes a Case runs in, and the compiled programs they key.

``mode`` holds the one ``run`` signature; ``eager`` and ``fake`` run the op
(or the Case's program) without compiling; ``compiled`` holds the compiled
Modes (``COMPILED``) and the stages before Inductor (``STAGES``);
``compiled_program`` what a compiled program proves, and ``cache`` the
compiled programs of a run and Inductor's caches; ``programs`` the code
around the op; ``triton_cpu`` Inductor's Triton backend on the CPU.

This package's own module imports nothing: a run that compiles nothing does
not load torch's compiler.
"""
