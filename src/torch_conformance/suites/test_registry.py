"""The registry lint in the gate: one test per op namespace of the run's
specs, each linting every op registered there (``torch-conformance lint``,
in its own process, so what earlier tests compiled cannot make an implicit
fallback look explicit and a kernel that kills its process fails one test).
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable

import pytest

from torch_conformance.oracles.core.findings import Finding
from torch_conformance.plugin import run_specs
from torch_conformance.reports.store import serve, store_of, verdict_key


def test_registry(namespace: str, request: pytest.FixtureRequest, record_finding: Callable) -> None:
    """Every op of the namespace: a fake of the schema's structure and
    aliasing that agrees with the kernel, a compilable schema."""
    request.node.user_properties += [("spec", namespace), ("check", "registry"), ("mode", "lint")]
    # A verdict kept while neither the namespace's specs nor its ops changed.
    store = store_of(request.config)
    key = None
    if store is not None:
        specs = [s for s in run_specs(request.config) if s.namespace == namespace]
        key = verdict_key(request.config, request.node.nodeid, specs, _ops(specs, namespace))
    if serve(store, key, request.node):
        return
    report = request.config.getoption("--repro-dir") / f"lint-{namespace}.json"
    report.parent.mkdir(parents=True, exist_ok=True)
    specs = [f"--specs={t}" for t in request.config.getoption("--specs")]
    specs += [f"--specs-from={t}" for t in request.config.getoption("--specs-from")]
    command = [
        sys.executable,
        "-m",
        "torch_conformance.suites.lint",
        namespace,
        f"--json={report}",
        *specs,
    ]
    # From the run's own folder, where its relative paths lie.
    where = request.config.invocation_params.dir
    done = subprocess.run(command, cwd=where, capture_output=True, text=True)
    if not report.exists() or done.returncode not in (0, 1):
        tail = " / ".join((done.stdout + done.stderr).strip().splitlines()[-3:])
        pytest.fail(f"the lint of {namespace!r} died (exit {done.returncode}): {tail}", False)
    ops = json.loads(report.read_text())["namespaces"][namespace]
    request.node.user_properties.append(("cases", len(ops)))
    if not ops:
        pytest.fail(
            f"the lint of {namespace!r} checked no op, so it proves nothing: the run's specs "
            "load no op of the namespace (record with --import MODULE, or load it in a "
            "spec's prepare())",
            False,
        )
    errors = []
    for op in ops:
        for problem in op["problems"]:
            blocking = problem["blocking"] and op.get("excluded") is None
            if blocking:
                errors.append(f"{op['op']}: [{problem['code']}] {problem['message']}")
            # The report holds every problem, the blocking ones too.
            record_finding(Finding(problem["code"], problem["message"], blocking), op["op"])
    if errors:
        rerun = " ".join(["torch-conformance lint", namespace, *specs])
        pytest.fail("\n".join([*errors, f"rerun: {rerun}"]), False)
    if store is not None and key is not None:
        store.keep(key, request.node.nodeid, request.node.user_properties)


def _ops(specs: list, namespace: str) -> list:
    """Every op registered in ``namespace`` once its specs are prepared:
    the lint judges them all."""
    from torch_conformance.oracles.lint.fallbacks import namespace_ops

    for spec in specs:
        if spec.prepare is not None:
            spec.prepare()
    return list(namespace_ops(namespace))
