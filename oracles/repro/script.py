"""The whole script: its header, the copied code, the Case, and main."""

from __future__ import annotations

import inspect
import os
import platform
import sys
import types
from collections.abc import Sequence
from pathlib import Path

import torch

from oracles.case import Case, View
from oracles.modes import COMPILED, INDUCTOR, Compiled
from oracles.programs import ops as program_ops
from oracles.programs.program import Program
from oracles.repro import checks
from oracles.repro.cases import ALLOCATE, arguments_function, cases_table
from oracles.repro.inliner import Inliner, join
from oracles.repro.loading import fake_registration, op_loading
from oracles.repro.source import rename
from oracles.repro.values import comment, identifier, literal
from oracles.signature import batch_signature
from oracles.spec import Spec, SpecError, call_op

CHECKS = ("reference", "fake", "schema", "compiled")


def write_repro(
    spec: Spec,
    check: str,
    cases: Sequence[Case],
    index: int,
    batched: bool,
    path: Path,
    mode: str | Compiled = INDUCTOR.name,
    dynamic: bool = False,
) -> Path:
    """Write the standalone script for cases[index] failing `check` of `spec`
    (the compiled check in Mode `mode`, with dynamic shapes if ``dynamic``)
    to `path` (creating parent folders), return path."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render_repro(spec, check, cases, index, batched, mode, dynamic))
    return path


def _copy_function(inliner: Inliner, fn: object, role: str) -> str | None:
    """The script's name for the spec's ``role`` (its program or reference)."""
    if not isinstance(fn, types.FunctionType):
        inliner.problems.append(f"the {role}'s source: {fn!r} is not a Python function")
        return None
    hint = fn.__name__ if fn.__name__ != "<lambda>" else role
    return inliner.name_of(fn, hint, f"the {role}")


def _copy_program(inliner: Inliner, program: Program) -> str | None:
    """The script's name for a drawn program, written from its own text with
    the helpers it calls (and the definition of its second mutating op)."""
    names = {"call_op": inliner.name_of(call_op, "call_op", "the program")}
    if "scale_" in program.kinds():
        module = inspect.getsource(program_ops)
        body = module[module.index("import torch") :]
        inliner.blocks.append(body.strip() + "\n")
        inliner.bind(program_ops.scale_, "scale_")
        names["scale_"] = "scale_"
    if None in names.values():
        return None
    name = identifier("program", inliner._taken, "program")
    inliner.blocks.append(rename(program.source(name), names))
    return name


def render_repro(
    spec: Spec,
    check: str,
    cases: Sequence[Case],
    index: int,
    batched: bool,
    mode: str | Compiled = INDUCTOR.name,
    dynamic: bool = False,
) -> str:
    """The text of the script ``write_repro`` writes; ``mode``: a compiled
    Mode or its name; ``dynamic``: the compiled check compiles a Case alone
    with dynamic shapes (as a drawn program is)."""
    if check not in CHECKS:
        raise ValueError(f"unknown check {check!r}; the checks are {', '.join(CHECKS)}")
    if isinstance(mode, str):
        if mode not in COMPILED:
            raise ValueError(f"unknown mode {mode!r}; the compiled Modes are {', '.join(COMPILED)}")
        mode = COMPILED[mode]
    if not 0 <= index < len(cases):
        raise IndexError(f"index {index} is outside the {len(cases)} Case(s)")
    try:
        spec.resolve()
    except SpecError:
        if spec.prepare is None:
            raise
        spec.prepare()
    batch = None
    if check == "compiled" and batched and len(cases) > 1:
        batch = batch_signature(cases)
        run = list(cases[: index + 1])
    else:
        run = [cases[index]]
    case = run[-1]

    inliner = Inliner(checks.RESERVED)
    for module in (os, sys, torch):
        inliner.bind(module, module.__name__)
    # The suite's own code first, so it keeps the names main calls it by.
    for obj in checks.suite_code(check, spec):
        if inliner.name_of(obj, obj.__name__, "the suite's verdicts") != obj.__name__:
            raise RuntimeError(f"the suite's {obj.__qualname__} was copied under another name")
    suite_blocks = len(inliner.blocks)
    loading, op_expression, defining_module = op_loading(spec, inliner)
    program = None
    if check == "compiled":
        generated = getattr(spec.program, "program", None)
        program = (
            _copy_program(inliner, generated)
            if isinstance(generated, Program)
            else _copy_function(inliner, spec.program, "program")
        )
    reference = None
    if checks.needs_reference(check, spec):
        reference = _copy_function(inliner, spec.reference, "reference")
    fake_lines = []
    if check in ("fake", "schema", "compiled") and spec.overload is not None:
        fake_lines = fake_registration(spec, inliner, defining_module)
    suite = join(inliner.blocks[:suite_blocks])
    code = inliner.code(suite_blocks)

    helpers, imports = checks.helpers(check, spec)
    imports = sorted({*imports, *inliner.imports}, key=lambda line: (line[0] == "f", line))
    if any("importlib.util" in line for line in loading):
        imports.insert(0, "import importlib.util")
    elif any("importlib." in line for line in loading):
        imports.insert(0, "import importlib")

    # The Case(s), their views and the program.
    if batch is not None:
        signature_args = batch.signature.args
        sizes = [batch.sizes(c) for c in run]
        size_names = [f"s{i}" for i in range(len(batch.dynamic))]
        static_dims = [(name, dim) for name, dim, _ in batch.static_dims]
    else:
        signature_args = tuple(case.args.items())
        sizes = [()]
        size_names = []
        static_dims = []
    buffer_names = sorted(case.buffers)
    taken = {"op", "arguments", "torch", "model", *size_names}
    if program:
        taken.add(program)
    parameters = {name: identifier(name, taken, "buffer") for name in buffer_names}

    out = [
        _header(spec, check, mode, cases, index, batch is not None) + "\n\n" + _preamble(imports)
    ]
    if inliner.problems:
        message = "could not recover " + "; ".join(inliner.problems)
        out.append(
            "# The suite could not copy all the code this check runs into the script:\n"
            f"raise SystemExit({literal(message)})\n"
        )
    if loading:
        out.append("\n".join(loading) + "\n")
    if check == "compiled":
        out.append(checks.compile_settings(mode))
    out.append("# --- The suite's verdicts and Findings, copied from its source ---\n\n\n" + suite)
    if code.strip():
        out.append("# --- The code under test, copied from its source ---\n\n\n" + code)
    if fake_lines:
        out.append("\n".join(fake_lines) + "\n")
    out.append("\n".join(checks.constants(check, spec, op_expression)) + "\n")
    out.append("# --- The Case ---\n\n" + cases_table(run, sizes, "Buffer") + "\n")
    out.append(ALLOCATE.strip() + "\n")
    out.append(arguments_function(signature_args, case, buffer_names, size_names, parameters))
    if check == "schema":
        views = {n: v.buffer for n, v in case.args.items() if isinstance(v, View)}
        items = "".join(f"    {literal(n)}: {literal(b)},\n" for n, b in views.items())
        out.append(f"# Each tensor argument: the buffer it is a view of.\nVIEWS = {{\n{items}}}\n")
    if check == "compiled":
        params = ", ".join([parameters[n] for n in buffer_names] + size_names)
        out.append(
            f"def model({params}):\n"
            '    """The spec\'s program as the suite compiles it, the views made in the graph."""\n'
            f"    return {program or 'program'}(op, **arguments({params}))\n"
        )
        out.append(
            f"DYNAMIC = {batch is not None or dynamic}  # one compile for the batch, "
            "dynamic in what varies\n"
            f"STATIC_DIMS = {literal(static_dims)}  # (buffer, dim): equal across the batch\n"
        )
    out.append(
        "# --- Comparisons: the check's runs, judged by the suite's verdicts ---\n\n\n"
        + join(helper.strip("\n") for helper in helpers)
    )
    out.append(checks.main_code(check, spec, program, reference) + "\n")
    out.append('if __name__ == "__main__":\n    sys.exit(main())\n')
    return join(out) + "\n"


def _header(
    spec: Spec, check: str, mode: Compiled, cases: Sequence[Case], index: int, batched: bool
) -> str:
    words = f"{check} ({mode.name})" if check == "compiled" else check
    header = (
        f'Reproduces the "{words}" check of spec {spec.name!r} '
        f"(op {spec.label}) failing on {cases[index].describe()}"
    )
    if batched:
        runs = "Case 1" if index == 0 else f"Cases 1 to {index + 1} in order"
        header += (
            f" (Case {index + 1} of a batch of {len(cases)} sharing one program compiled "
            f"with dynamic shapes: the script compiles once and runs {runs}, as the suite did)"
        )
    written = (
        f"Written by the torch.compile conformance suite on torch {torch.__version__} "
        f"(Python {platform.python_version()}). It needs only torch and what loads the op: "
        "run it with `python <this file>`. Exit status 1 while the bug is there, 0 when "
        "everything agrees."
    )
    return comment(f"{header}\n\n{written}\n\n{checks.WHAT[check]}")


def _preamble(imports: list[str]) -> str:
    return (
        "from __future__ import annotations\n\nimport os\n\n"
        "# Inductor's caches off: a graph cached under an older fake replays the old bug.\n"
        'os.environ["TORCHINDUCTOR_FORCE_DISABLE_CACHES"] = "1"\n\n'
        + "\n".join(["import sys", "", "import torch", *imports])
    )
