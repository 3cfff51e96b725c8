"""How the suite judges an op: a map of subpackages, one concern each.

- ``core``: the vocabulary (Case, Spec, Observation, Finding, Verdicts,
  Program, Signature), importing nothing else of the suite;
- ``strategies``: Hypothesis strategies of Cases, layouts, batches and
  generated programs, and what makes a program legal;
- ``modes``: the Modes a Case runs in and the compiled programs they key;
- ``comparisons``: pure comparisons of runs, returning Findings;
- ``triage``: known compiler faults and the stage at fault;
- ``judging``: what the checks share: Check, the differential and gradient
  runs, their Verdicts and repro script drivers;
- ``checks``: one module per check, each defining its ``CHECK``;
- ``runner``: the Hypothesis property, replays, spec loading;
- ``repro``: standalone repro scripts;
- ``lint``: the registry lint;
- ``recording``: recorded calls of a namespace's ops, and the Specs and
  Cases made from them.

The public surface a spec file imports lies one level up, in the
package's own modules (``torch_conformance.spec``, ``.case``, ...):
re-exports that keep their names whatever moves here.
"""
