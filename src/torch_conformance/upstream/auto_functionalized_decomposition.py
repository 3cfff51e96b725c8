"""With dynamic shapes, Inductor cannot compile a program that reads a
permuted view of a graph input with a size-1 dimension, then mutates it with
an opaque custom op.

Upstream: none found for this path (nearest: pytorch/pytorch#181735, the same
assertion for user Triton kernels, fixed by PR #183334, which left the
``auto_functionalized`` path alone for want of a failing repro: this is one);
this script is the report.

``x = buffer.permute(0, 2, 1)`` with ``buffer`` of shape [1, 8, 2];
``y = x * 2; scale_(x); return y.reshape(-1)`` with ``scale_`` a custom op
that mutates ``x``. Compiled with ``dynamic=True``, Inductor's post-grad pass
``decompose_auto_functionalized`` calls ``Match.replace_by_example``, which
traces the decomposition twice and asserts both traces have as many nodes;
they do not, and the compile fails (an ``AssertionError`` with no message on
torch 2.13, "graph node count mismatch between eager and replacement" on
2.14). A static compile and ``aot_eager`` are right, and so is the same
program with a leading dimension of 2.

Deployed instead (``python upstream/deployed.py {export,aoti}
upstream/auto_functionalized_decomposition.py``): exported and run as
exported it is right; AOTInductor fails to compile it as ``torch.compile``
does with dynamic dimensions (static it is right). The entry's ``deployed``
lists the releases.

Run: ``python upstream/auto_functionalized_decomposition.py`` (exit status 1
where it reproduces).
"""

import sys

import torch


@torch.library.custom_op("upstream_repro::scale_", mutates_args={"x"})
def scale_(x: torch.Tensor) -> None:
    x.mul_(2)


@scale_.register_fake
def _(x: torch.Tensor) -> None:
    return None


def program(buffer: torch.Tensor) -> torch.Tensor:
    x = buffer.permute(0, 2, 1)
    y = x * 2
    scale_(x)
    return y.reshape(-1)


def compiled(shape: tuple[int, ...] = (1, 8, 2)) -> str:
    torch._dynamo.reset()
    buffer = torch.arange(16.0).view(shape)
    expected = program(buffer.clone())
    try:
        out = torch.compile(program, fullgraph=True, dynamic=True)(buffer)
    except Exception as error:
        return f"{type(error).__name__}: {str(error).splitlines()[0]}".strip()
    return "values equal" if torch.equal(out, expected) else "values differ"


def reproduces() -> bool:
    return compiled() != "values equal"


if __name__ == "__main__":
    print(f"torch {torch.__version__}")
    print(f"leading dimension 1: {compiled()}")
    print(f"leading dimension 2: {compiled((2, 4, 2))}")
    sys.exit(int(reproduces()))
