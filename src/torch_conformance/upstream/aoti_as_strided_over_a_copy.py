"""AOTInductor makes an ``as_strided`` of a view of a mutated input over a
fresh copy of that view, with the strides and offset it has in the input's
storage: it reads other elements than eager (or past the copy's end).

``x = buf.permute(2, 1, 0)``; ``view = x[:, :, 2:4:2]``; ``x.mul_(2)``;
``return view.as_strided((2, 5, 1), (1, 7, 1), 1)``, on ``buf`` of shape
[10, 5, 7]: eagerly (and exported) the result is a view into ``buf``'s 350
elements, the doubled values at offsets 1 to 30. From the AOTInductor package
it comes back over a fresh 35-element copy of ``view`` (laid out as ``view``
is), at the same offset and strides, so it reads the copy's elements 1 to 30:
other values. With an offset past the copy's end
(``buf[:, :, 2:4:2].as_strided((1, 5, 1), (10, 50, 2), 113)`` on a contiguous
``buf`` of shape [7, 5, 10]) torch 2.13 and 2.14 return a view that reaches
past the end of its storage, so reading it reads memory it does not own;
2.15 refuses that program instead ("as_strided(...) requires 314 elements but
buf2 holds only 35"). Found by the suite's generated programs (around
silu_and_mul in its Triton form and apply_chunked_sections) in its ``aoti``
Mode.

Upstream: pytorch/pytorch#197431 (open), and its fix pytorch/pytorch#197712
("Realize the base of a view used by as_strided instead of copying it").
The 2.15 refusal is the guard pytorch/pytorch#192227 added
(``aoti_as_strided_refused.py``).

Run: ``python upstream/aoti_as_strided_over_a_copy.py`` (exit status 1 where
it reproduces).
"""

import os
import sys
import tempfile

import torch


class Program(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        view = x[:, :, 2:4:2]
        x.mul_(2)
        return view.as_strided((2, 5, 1), (1, 7, 1), 1)


def block() -> torch.Tensor:
    return torch.arange(350.0).reshape(10, 5, 7).permute(2, 1, 0)


def deployed(x: torch.Tensor) -> torch.Tensor:
    program = torch.export.export(Program(), (block(),))
    with tempfile.TemporaryDirectory() as folder:
        package = os.path.join(folder, "program.pt2")
        runner = torch._inductor.aoti_load_package(
            torch._inductor.aoti_compile_and_package(program, package_path=package)
        )
        return runner(x)


if __name__ == "__main__":
    print(f"torch {torch.__version__}")
    eager, aoti = Program()(block()), deployed(block())
    for name, out in (("eager", eager), ("aoti", aoti)):
        held = out.untyped_storage().nbytes() // out.element_size()
        print(f"{name:>5}: {out.flatten()[:5].tolist()} ... over a storage of {held} elements")
    sys.exit(int(not torch.equal(eager, aoti)))
