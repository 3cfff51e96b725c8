"""AOTInductor returns a copy, not the input, where a program returns a view
of an input that it mutated in place twice.

``row = buf.narrow(0, 1, 1); row.mul_(2); row.add_(1); return row``: eagerly,
exported and under torch.compile the result shares ``buf``'s storage, so a
later write to one shows in the other. From the AOTInductor package it is a
fresh tensor with the same values (``buf`` is updated right): the row of a
fresh contiguous copy of ``buf``'s final values. One mutation alone keeps
the alias here. Found by the suite's generated programs (around
fused_add_rms_norm, silu_and_mul and the mrope ops) in its ``aoti`` Mode. No
upstream report found.

Run: ``python upstream/aoti_returned_view_copy.py`` (exit status 1 where it
reproduces).
"""

import os
import sys
import tempfile

import torch


class Program(torch.nn.Module):
    def forward(self, buf: torch.Tensor) -> torch.Tensor:
        row = buf.narrow(0, 1, 1)
        row.mul_(2)
        row.add_(1)
        return row


def shares(run) -> bool:
    """Whether the program run by ``run`` returns a view of its input."""
    buf = torch.arange(8.0).reshape(2, 4)
    return run(buf).untyped_storage().data_ptr() == buf.untyped_storage().data_ptr()


def deployed(buf: torch.Tensor) -> torch.Tensor:
    program = torch.export.export(Program(), (buf.clone(),))
    with tempfile.TemporaryDirectory() as folder:
        package = os.path.join(folder, "program.pt2")
        runner = torch._inductor.aoti_load_package(
            torch._inductor.aoti_compile_and_package(program, package_path=package)
        )
        return runner(buf)


if __name__ == "__main__":
    print(f"torch {torch.__version__}")
    exported = torch.export.export(Program(), (torch.zeros(2, 4),)).module()
    aoti = shares(deployed)
    print(f"returns a view of its input: eager {shares(Program())}, exported {shares(exported)}")
    print(f"returns a view of its input: AOTInductor {aoti}")
    sys.exit(int(not aoti))
