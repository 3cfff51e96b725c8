"""After an opaque custom op mutates a graph input, an in-place update that
reads the same tensor at mirrored positions reads the new values too late.

Upstream: a new trigger of pytorch/pytorch#198270, where the first write is
``index_put_``/``index_copy_``; here it is a mutating custom op, and with
aten ``mul_`` in its place the program is right.

``scale_(b); v = b.flip(0); b.add_(v); return v`` on ``b = [1, 2, 3]``:
eager gives ``v = [6, 4, 2]`` and ``b = [8, 8, 8]``; compiled (statically or
with dynamic shapes) ``v = [6, 4, 8]`` and ``b = [8, 8, 14]``: the flip is
fused with the copy back into ``b`` and reads an element already updated.

Deployed instead (``python upstream/deployed.py {export,aoti}
upstream/mirrored_read_after_write.py``): exported and run as exported it is
right; compiled by AOTInductor it reproduces where ``torch.compile`` does.
The entry's ``deployed`` lists the releases.

Run: ``python upstream/mirrored_read_after_write.py`` (exit status 1 where it
reproduces).
"""

import sys

import torch


@torch.library.custom_op("upstream_repro::scale_", mutates_args=("x",))
def scale_(x: torch.Tensor) -> None:
    x.mul_(2)


@scale_.register_fake
def _(x: torch.Tensor) -> None:
    return None


def program(b: torch.Tensor) -> torch.Tensor:
    scale_(b)
    v = b.flip(0)
    b.add_(v)
    return v


def run(function) -> tuple[list[float], list[float]]:
    b = torch.tensor([1.0, 2.0, 3.0])
    v = function(b)
    return v.tolist(), b.tolist()


def reproduces() -> bool:
    torch._dynamo.reset()
    return run(program) != run(torch.compile(program, fullgraph=True))


if __name__ == "__main__":
    print(f"torch {torch.__version__}")
    print(f"eager:    v, b = {run(program)}")
    torch._dynamo.reset()
    print(f"compiled: v, b = {run(torch.compile(program, fullgraph=True))}")
    sys.exit(int(reproduces()))
