"""AOTInductor refuses a program whose ``as_strided`` of a view of a mutated
input reaches past that view's own elements.

``view = buf[:, :, 2:4:2]; buf.mul_(2); return view.as_strided((1, 5, 1),
(10, 50, 2), 113)``, on ``buf`` of shape [7, 5, 10]: eagerly and exported
the result is a view into ``buf``'s 350 elements. AOTInductor realizes the
view as a buffer of its own 35 elements, and the lowering of the
``as_strided`` then raises ``NotImplementedError: as_strided([1, 5, 1], [10,
50, 2], 113) requires 314 elements but buf2 holds only 35`` (torch 2.15).
Torch 2.13 and 2.14 compile it and return a view past the end of its storage
instead (``aoti_as_strided_over_a_copy.py``). Found by the suite's generated
programs in its ``aoti`` Mode. The error is the guard that
pytorch/pytorch#192227 added to the lowering of ``as_strided``; the copy
behind it is pytorch/pytorch#197431 (fix pytorch/pytorch#197712).

Run: ``python upstream/aoti_as_strided_refused.py`` (exit status 1 where it
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


def deployed() -> None:
    buf = torch.arange(350.0).reshape(7, 5, 10)
    program = torch.export.export(Program(), (buf,))
    with tempfile.TemporaryDirectory() as folder:
        package = os.path.join(folder, "program.pt2")
        torch._inductor.aoti_compile_and_package(program, package_path=package)


if __name__ == "__main__":
    print(f"torch {torch.__version__}")
    try:
        deployed()
    except Exception as error:  # the refusal, as Inductor raises it
        if "requires 314 elements but" not in str(error):
            raise
        print(f"AOTInductor refuses the program: {str(error).splitlines()[0][:200]}")
        sys.exit(1)
    print("AOTInductor compiles the program")
