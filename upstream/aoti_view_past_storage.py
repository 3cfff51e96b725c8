"""AOTInductor returns an ``as_strided`` view of a sliced input at the input's
storage offset, but over a fresh copy of the slice: the view reaches far past
the end of its storage, so reading it reads memory it does not own.

``buf[:, :, 2:4:2].as_strided((1, 5, 1), (10, 50, 2), 113)`` after ``buf.mul_(2)``,
on ``buf`` of shape [7, 5, 10]: eagerly (and exported) it is a view into
``buf``'s 350 elements. From the AOTInductor package it comes back at offset
113 of a 35-element storage. Found by the suite's generated programs (around
silu_and_mul in its Triton form) in its ``aoti`` Mode. No upstream report
found.

Run: ``python upstream/aoti_view_past_storage.py`` (exit status 1 where it
reproduces).
"""

import os
import sys
import tempfile

import torch


class Program(torch.nn.Module):
    def forward(self, buf: torch.Tensor) -> torch.Tensor:
        view = buf[:, :, 2:4:2]
        buf.mul_(2)
        return view.as_strided((1, 5, 1), (10, 50, 2), 113)


def reach(tensor: torch.Tensor) -> tuple[int, int]:
    """The elements its view reaches in its storage, and those the storage holds."""
    last = sum((n - 1) * s for n, s in zip(tensor.shape, tensor.stride(), strict=True))
    return tensor.storage_offset() + last + 1, tensor.untyped_storage().nbytes() // 4


def deployed(buf: torch.Tensor) -> torch.Tensor:
    program = torch.export.export(Program(), (buf.clone(),))
    with tempfile.TemporaryDirectory() as folder:
        package = os.path.join(folder, "program.pt2")
        runner = torch._inductor.aoti_load_package(
            torch._inductor.aoti_compile_and_package(program, package_path=package)
        )
        return runner(buf.clone())


if __name__ == "__main__":
    buf = torch.arange(350.0).reshape(7, 5, 10)
    print(f"torch {torch.__version__}")
    for name, out in (("eager", Program()(buf.clone())), ("aoti", deployed(buf))):
        needs, holds = reach(out)
        print(f"{name:>5}: the view reaches {needs} elements of a storage of {holds}")
    sys.exit(int(needs > holds))  # the deployed program's
