"""The whole script: its header, the copied code, the Case, and main.

What the script runs is the failing check's own driver (``Check.script``,
``oracles.judging.script_drivers.Script``); this module writes what every script has.
"""

from __future__ import annotations

import dataclasses
import inspect
import os
import platform
import sys
import types
from collections.abc import Sequence
from pathlib import Path

import torch

from torch_conformance.oracles.checks import CHECKS
from torch_conformance.oracles.core.buffers import Case
from torch_conformance.oracles.core.calls import call_op
from torch_conformance.oracles.core.program import Program
from torch_conformance.oracles.core.signature import BatchSignature, batch_signature, signature_of
from torch_conformance.oracles.core.specification import Spec, SpecError
from torch_conformance.oracles.judging.check import Check
from torch_conformance.oracles.judging.script_drivers import COMMON, RESERVED, Script
from torch_conformance.oracles.modes import scale_op
from torch_conformance.oracles.modes.compile_settings import settings_of
from torch_conformance.oracles.modes.compiled import COMPILED, INDUCTOR, Compiled
from torch_conformance.oracles.repro.cases import allocate_function, arguments_function, cases_table
from torch_conformance.oracles.repro.inliner import Inliner, join
from torch_conformance.oracles.repro.loading import fake_registration, op_loading
from torch_conformance.oracles.repro.source import rename
from torch_conformance.oracles.repro.values import comment, identifier, literal

# The line that heads what a script could not copy (it then exits 2).
_INCOMPLETE = "# The suite could not copy all the code this check runs into the script; it"


def incomplete(path: Path) -> str | None:
    """What the script at ``path`` could not copy, so that it exits 2
    without running the check; None for a standalone repro."""
    lines = Path(path).read_text().splitlines()
    if _INCOMPLETE not in lines:
        return None
    message = lines[lines.index(_INCOMPLETE) + 2]
    return message.removeprefix("print(").rpartition(", file=sys.stderr)")[0].strip("'\"")


def write_repro(
    spec: Spec,
    check: Check | str,
    cases: Sequence[Case],
    index: int,
    batched: bool,
    path: Path,
    mode: str | Compiled = INDUCTOR.name,
    dynamic: bool = False,
) -> Path:
    """Write the standalone script for cases[index] failing ``check`` of
    ``spec`` (in Mode ``mode`` where the check compiles, with dynamic shapes
    if ``dynamic``) to ``path`` (creating parent folders), return path."""
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
    names: dict[str, str | None] = {"call_op": inliner.name_of(call_op, "call_op", "the program")}
    if "scale_" in program.kinds():
        module = inspect.getsource(scale_op)
        body = module[module.index("import torch") :]
        inliner.blocks.append(body.strip() + "\n")
        inliner.bind(scale_op.scale_, "scale_")
        names["scale_"] = "scale_"
    known = {old: new for old, new in names.items() if new is not None}
    if len(known) < len(names):
        return None
    name = identifier("program", inliner._taken, "program")
    inliner.blocks.append(rename(program.source(name), known))
    return name


def render_repro(
    spec: Spec,
    check: Check | str,
    cases: Sequence[Case],
    index: int,
    batched: bool,
    mode: str | Compiled = INDUCTOR.name,
    dynamic: bool = False,
) -> str:
    """The text of the script ``write_repro`` writes; ``check``: a Check or
    its name; ``mode``: a compiled Mode or its name; ``dynamic``: the program
    compiles a Case alone with dynamic shapes (as a drawn program is).

    The steps: the arguments resolved (``_resolved``), the Cases the script
    runs (``_prepared``), the code it copies (``_Copied``), how the Case
    reaches the program (``_Layout``), then the script's sections in order."""
    check, script, mode = _resolved(spec, check, mode, cases, index)
    batch, run = _prepared(script, cases, index, batched)
    case = run[-1]
    copied = _Copied.of(spec, script, case)
    helpers, imports = script.helpers(spec)
    layout = _Layout.of(script, case, run, batch, dynamic, copied.program)
    words = check.title(mode) if script.runs_compiled else check.name
    out = [
        _header(spec, words, script, cases, index, batch is not None, mode)
        + "\n\n"
        + _preamble(copied.imports(imports))
    ]
    out += copied.setup(script, mode)
    constants = [
        f"op = {copied.op_expression}",
        f"OP_NAME = {literal(spec.label)}",
        f"AGREEMENT = {literal(script.agreement(spec))}",
    ]
    out.append("\n".join(constants) + "\n")
    out.append("# --- The Case ---\n\n" + cases_table(run, layout.sizes, "Buffer") + "\n")
    out.append(allocate_function(run).strip() + "\n")
    out.append(
        arguments_function(
            layout.signature_args, case, layout.buffer_names, layout.size_names, layout.parameters
        )
    )
    own = script.constants(spec, case)
    if own:
        out.append("".join(f"{name} = {literal(value)}  # {why}\n" for name, value, why in own))
    if script.runs_compiled:
        out += layout.model(script, copied.program, batch is not None or dynamic)
    out.append(
        "# --- Comparisons: the check's runs, judged by the suite's comparisons ---\n\n\n"
        + join(helper.strip("\n") for helper in helpers)
    )
    out.append(script.main(spec, copied.program, copied.reference) + "\n")
    out.append('if __name__ == "__main__":\n    sys.exit(main())\n')
    return join(out) + "\n"


def _resolved(
    spec: Spec, check: Check | str, mode: str | Compiled, cases: Sequence[Case], index: int
) -> tuple[Check, Script, Compiled]:
    """The Check, its script and the compiled Mode, each checked; the spec resolved."""
    if isinstance(check, str):
        if check not in CHECKS:
            raise ValueError(f"unknown check {check!r}; the checks are {', '.join(CHECKS)}")
        check = CHECKS[check]
    script = check.script
    if script is None:
        raise ValueError(f"the {check.name} check writes no repro script")
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
    return check, script, mode


def _prepared(
    script: Script, cases: Sequence[Case], index: int, batched: bool
) -> tuple[BatchSignature | None, list[Case]]:
    """The batch the script compiles (None: a Case alone) and the Cases it
    runs: a batch's up to the failing one, else the failing one alone."""
    if script.runs_compiled and batched and len(cases) > 1:
        return batch_signature(cases), list(cases[: index + 1])
    return None, [cases[index]]


@dataclasses.dataclass(frozen=True)
class _Copied:
    """The code a script copies: the suite's comparisons, the code under
    test, how it loads the op, and what could not be copied."""

    suite: str
    code: str
    loading: list[str]
    op_expression: str
    program: str | None
    reference: str | None
    fake_lines: list[str]
    problems: list[str]
    needed: list[str]  # the imports the copied code needs

    @staticmethod
    def of(spec: Spec, script: Script, case: Case) -> _Copied:
        inliner = Inliner(RESERVED)
        for module in (os, sys, torch):
            inliner.bind(module, module.__name__)
        # The suite's own code first, so it keeps the names main calls it by.
        for obj in [*COMMON, *script.suite_code(spec)]:
            if inliner.name_of(obj, obj.__name__, "the suite's comparisons") != obj.__name__:
                raise RuntimeError(f"the suite's {obj.__qualname__} was copied under another name")
        suite_blocks = len(inliner.blocks)
        loaded = op_loading(spec, inliner, script.differentiates)
        program = None
        if script.runs_compiled:
            program = (
                _copy_program(inliner, case.program)
                if case.program is not None
                else _copy_function(inliner, spec.program, "program")
            )
        reference = None
        if script.reference(spec):
            reference = _copy_function(inliner, spec.reference, "reference")
        fake_lines = []
        if script.fake and spec.overload is not None:
            fake_lines = fake_registration(spec, inliner, loaded)
        return _Copied(
            suite=join(inliner.blocks[:suite_blocks]),
            code=inliner.code(suite_blocks),
            loading=loaded.lines,
            op_expression=loaded.expression,
            program=program,
            reference=reference,
            fake_lines=fake_lines,
            problems=inliner.problems,
            needed=sorted(inliner.imports),
        )

    def imports(self, helpers: Sequence[str]) -> list[str]:
        """The script's imports: its helpers' and the copied code's."""
        imports = sorted({*helpers, *self.needed}, key=lambda line: (line[0] == "f", line))
        if any("importlib.util" in line for line in self.loading):
            imports.insert(0, "import importlib.util")
        elif any("importlib." in line for line in self.loading):
            imports.insert(0, "import importlib")
        return imports

    def setup(self, script: Script, mode: Compiled) -> list[str]:
        """The sections before the Case: what could not be copied, the op's
        loading, the compile settings, the copied code and the fake."""
        out = []
        if self.problems:
            message = "could not recover " + "; ".join(self.problems)
            out.append(
                f"{_INCOMPLETE}\n"
                "# exits 2, not 1 (the bug is still there), since it cannot run the check:\n"
                f"print({literal(message)}, file=sys.stderr)\n"
                "raise SystemExit(2)\n"
            )
        if self.loading:
            out.append("\n".join(self.loading) + "\n")
        if script.runs_compiled:
            out.append(compile_settings(mode))
        out.append(
            "# --- The suite's comparisons and Findings, copied from its source ---\n\n\n"
            + self.suite
        )
        if self.code.strip():
            out.append("# --- The code under test, copied from its source ---\n\n\n" + self.code)
        if self.fake_lines:
            out.append("\n".join(self.fake_lines) + "\n")
        return out


@dataclasses.dataclass(frozen=True)
class _Layout:
    """How the Case reaches the program: the arguments of its signature, the
    sizes passed as inputs, and the script's name for each buffer."""

    signature_args: tuple
    sizes: list
    size_names: list[str]
    static_dims: list
    buffer_names: list[str]
    parameters: dict[str, str]

    @staticmethod
    def of(
        script: Script,
        case: Case,
        run: list[Case],
        batch: BatchSignature | None,
        dynamic: bool,
        program: str | None,
    ) -> _Layout:
        if batch is not None:
            signature_args = batch.signature.args
            sizes = [batch.sizes(c) for c in run]
            size_names = [f"s{i}" for i in range(len(batch.dynamic))]
            static_dims = [(name, dim) for name, dim, _ in batch.static_dims]
        elif script.runs_compiled and dynamic:
            # Outside a batch the suite passes every size of the Case's views as an
            # input (``Compiled.run``): compiled with dynamic shapes they are
            # symbolic, which changes the code Inductor generates (static, they are
            # constants either way).
            signature, case_sizes = signature_of(case)
            signature_args = signature.args
            sizes = [case_sizes]
            size_names = [f"s{i}" for i in range(len(case_sizes))]
            static_dims = []
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
        return _Layout(signature_args, sizes, size_names, static_dims, buffer_names, parameters)

    def model(self, script: Script, program: str | None, dynamic: bool) -> list[str]:
        """The program as the suite compiles it, and how it compiles."""
        params = ", ".join([self.parameters[n] for n in self.buffer_names] + self.size_names)
        buffers = ", ".join(self.parameters[n] for n in self.buffer_names)
        clones = (
            "    # A leaf that takes a gradient is copied first, as the suite does, so\n"
            "    # the program may write it in place.\n"
            f"    {buffers}, = [t.clone() if t.requires_grad else t for t in ({buffers},)]\n"
            if script.differentiates
            else ""
        )
        return [
            f"def model({params}):\n"
            '    """The spec\'s program as the suite compiles it, the views made in the graph."""\n'
            "    # Dynamo numbers the graph's inputs in the order it first meets them, and\n"
            "    # Inductor's code can depend on it: meet them in the suite's order.\n"
            f"    for tensor in ({buffers},):\n"
            "        tensor.dtype\n"
            + clones
            + f"    return {program or 'program'}(op, **arguments({params}))\n",
            f"DYNAMIC = {dynamic}  # one compile for the batch, dynamic in what varies\n"
            f"STATIC_DIMS = {literal(self.static_dims)}  # (buffer, dim): equal across the batch\n",
        ]


def compile_settings(mode: Compiled) -> str:
    """The suite's compile settings (``oracles.modes.compile_settings.COMPILE_SETTINGS``)
    with what the Mode changes, as a script sets them."""
    patches = settings_of(mode)
    lines = [
        "# The suite's compile settings: Inductor asserts every output's size and",
        "# stride after the op; an undeclared output alias of a custom op is not an",
        "# error (torch raises on it only where the CI variable is set); no duck",
        "# sizing; Dynamo fails loudly past its recompile limit instead of falling",
        f"# back to eager. The {mode.name} mode: {mode.what}.",
        *(f"import {module}" for module in sorted(patches)),
        "",
    ]
    for module, patch in patches.items():
        lines += [f"{module}.{key} = {literal(value)}" for key, value in patch.items()]
    lines += [mode.script_setup.strip("\n")] if mode.script_setup else []
    lines.append(f"MODE = {literal(mode.name)}")
    lines.append(f"BACKEND = {literal(mode.backend)}")
    if mode.deploy:
        lines.append(f"PACKAGED = {literal(mode.deploy.packaged)}")
        lines.append(f"STRICT = {literal(mode.deploy.strict)}")
    lines.append(_DEPLOYED.strip("\n") if mode.deploy else _COMPILED.strip("\n"))
    return "\n".join(lines) + "\n"


# How a script compiles the model: torch.compile, as the suite does.
_COMPILED = """

def compile_program(model, backend=None):
    return torch.compile(model, backend=backend or BACKEND, fullgraph=True, dynamic=DYNAMIC)
"""
# Or deployed, as the suite does: exported (strictly or not) once per input
# signature, dimensions dynamic where the program is, then run as exported
# or compiled by AOTInductor, packaged and loaded.
_DEPLOYED = """

class Program(torch.nn.Module):
    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, *inputs):
        return self.model(*inputs)


def compile_program(model):
    deployed = {}

    def signature(value):
        if isinstance(value, torch.Tensor):
            return (tuple(value.shape), value.stride(), value.dtype)
        return (type(value), value)

    def run(*inputs):
        key = tuple(map(signature, inputs))
        if key not in deployed:
            dims = tuple(
                {d: torch.export.Dim.AUTO for d, n in enumerate(v.shape) if n > 1}
                if isinstance(v, torch.Tensor) else None
                for v in inputs
            )
            exported = torch.export.export(
                Program(model), inputs, dynamic_shapes=(dims,) if DYNAMIC else None, strict=STRICT
            )
            if not PACKAGED:
                deployed[key] = exported.module()
            else:
                import tempfile

                with tempfile.TemporaryDirectory() as folder:
                    package = folder + "/program.pt2"
                    path = torch._inductor.aoti_compile_and_package(exported, package_path=package)
                    deployed[key] = torch._inductor.aoti_load_package(path)
        return deployed[key](*inputs)

    return run
"""


def _header(
    spec: Spec,
    words: str,
    script: Script,
    cases: Sequence[Case],
    index: int,
    batched: bool,
    mode: Compiled,
) -> str:
    header = (
        f'Reproduces the "{words}" check of spec {spec.name!r} '
        f"(op {spec.label}) failing on {cases[index].describe()}"
    )
    if batched:
        runs = "Case 1" if index == 0 else f"Cases 1 to {index + 1} in order"
        header += (
            f" (Case {index + 1} of a batch of {len(cases)} sharing one program compiled "
            f"with dynamic shapes: the script compiles once and runs {runs}, as the suite did)"
            if not mode.deploy
            else f" (Case {index + 1} of a batch of {len(cases)} {mode.batch_program}: the "
            f"script runs {runs}, as the suite did)"
        )
    written = (
        f"Written by the torch.compile conformance suite on torch {torch.__version__} "
        f"(Python {platform.python_version()}). It needs only torch and what loads the op: "
        "run it with `python <this file>`. Exit status 1 while the bug is there, 0 when "
        "everything agrees."
    )
    return comment(f"{header}\n\n{written}\n\n{script.what}")


def _preamble(imports: list[str]) -> str:
    return (
        "from __future__ import annotations\n\nimport os\nimport warnings\n\n"
        "# Inductor's caches off: a graph cached under an older fake replays the old bug.\n"
        'os.environ["TORCHINDUCTOR_FORCE_DISABLE_CACHES"] = "1"\n'
        "# Dynamo says that turns its profile-guided dynamic shapes off too: expected here.\n"
        'warnings.filterwarnings("ignore", message="dynamo_pgo force disabled")\n\n'
        + "\n".join(["import sys", "", "import torch", *imports])
    )
