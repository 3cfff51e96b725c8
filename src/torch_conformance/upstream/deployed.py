"""Run a known fault's script with its ``torch.compile`` replaced by a
deployment: ``torch.export`` (non-strict, or ``export_strict``: traced by
Dynamo; the exported program run) or AOTInductor (the non-strict export
compiled, packaged, loaded and run).

Each script compiles its program with ``torch.compile(program,
fullgraph=True[, dynamic=True])`` and exits 1 where the compiled program
disagrees with eager. Run here, the same script says whether the fault
reproduces under the deployment instead. ``--dynamic`` exports every
dimension of size 2 and more as dynamic (``Dim.AUTO``), as the suite's
``export`` and ``aoti`` Modes export a batch; without it a script's
``dynamic=True`` does the same and the others export statically. Plain
ints stay constants.

Run: ``python upstream/deployed.py aoti [--dynamic] upstream/<script>.py``.
Exit status: the script's (1 where it reproduces), or 3 where the
deployment fails (the traceback says how).

upstream/README.md's "Under export and AOTInductor" table comes from this tool,
every script in all four ways.
"""

import argparse
import os
import runpy
import sys
import tempfile
import traceback

import torch
from torch.export import Dim

HOW = ("export", "export_strict", "aoti")


class _Module(torch.nn.Module):
    def __init__(self, program):
        super().__init__()
        self.program = program

    def forward(self, *args):
        return self.program(*args)


def _dims(args, dynamic: bool):
    if not dynamic:
        return None
    # One entry: forward's *args, a tuple of the inputs' dimensions.
    return (
        tuple(
            {d: Dim.AUTO for d, n in enumerate(a.shape) if n > 1}
            if isinstance(a, torch.Tensor)
            else None
            for a in args
        ),
    )


def deploy(how: str, program, args, dynamic: bool):
    """``program`` deployed for ``args``: the exported program's module, or
    the AOTInductor package loaded."""
    exported = torch.export.export(
        _Module(program),
        tuple(args),
        dynamic_shapes=_dims(args, dynamic),
        strict=how == "export_strict",
    )
    if how != "aoti":
        return exported.module()
    with tempfile.TemporaryDirectory() as folder:
        package = os.path.join(folder, "program.pt2")
        return torch._inductor.aoti_load_package(
            torch._inductor.aoti_compile_and_package(exported, package_path=package)
        )


def deployed_compile(how: str, shapes: bool | None):
    """A stand-in for ``torch.compile``: the program deployed on its first
    call, with dynamic dimensions as ``shapes`` says (True: dynamic, False:
    static), else where the script says ``dynamic=True``."""

    def compile(program, *, dynamic: bool | None = None, **_options):
        deployed = {}

        def run(*args):
            if "runner" not in deployed:
                dims = bool(dynamic) if shapes is None else shapes
                deployed["runner"] = deploy(how, program, args, dims)
            return deployed["runner"](*args)

        return run

    return compile


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("how", choices=HOW)
    parser.add_argument("script")
    shapes = parser.add_mutually_exclusive_group()
    shapes.add_argument("--static", dest="shapes", action="store_false", default=None)
    shapes.add_argument("--dynamic", dest="shapes", action="store_true")
    options = parser.parse_args()
    torch.compile = deployed_compile(options.how, options.shapes)
    sys.argv = [options.script]
    try:
        runpy.run_path(options.script, run_name="__main__")
    except SystemExit as exit:
        return int(exit.code or 0)
    except BaseException:
        traceback.print_exc()
        return 3
    return 0


if __name__ == "__main__":
    sys.exit(main())
