"""How the suite judges an op: a map of subpackages, one concern each.

- ``core``: the vocabulary (Case, Spec, Observation, Finding, Verdicts,
  Program, Signature), importing nothing else of the suite;
- ``strategies``: Hypothesis strategies of Cases, layouts, batches and
  generated programs, and what makes a program legal;
- ``modes``: the Modes a Case runs in and the compiled programs they key;
- ``comparisons``: pure comparisons of runs, returning Findings;
- ``checks``: one module per check, each with its judge, its failure report
  and its repro script driver;
- ``triage``: known compiler faults and the stage at fault;
- ``runner``: the Hypothesis property, replays, spec loading;
- ``repro``: standalone repro scripts;
- ``lint``: the registry lint.

The modules at this level are the public surface a spec file imports:
``oracles.case``, ``oracles.spec``, ``oracles.layouts``, ``oracles.rows``,
``oracles.reference``, ``oracles.domain``, ``oracles.properties`` and
``oracles.registry``: re-exports that keep their names whatever moves.
"""
