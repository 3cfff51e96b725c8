"""After ``index_copy_`` into a transposed graph input, a pointwise result of
that input comes back contiguous under torch.compile, transposed in eager.

Upstream: pytorch/pytorch#133512 (functionalization does not reproduce the
strides of intermediate values); the mechanism is the one #111133 describes
for ``index_add``: the functional ``index_copy`` returns a contiguous tensor,
and what is computed from it follows that layout.

``c.index_copy_(0, idx, c.index_select(0, src)); return c * 2`` with ``c`` of
strides (1, 65): eager returns strides (1, 65), compiled (``aot_eager`` and
Inductor) (64, 1); the values agree. ``copy_``, ``add_``, setitem and a
mutating custom op keep the layout.

Deployed instead (``python upstream/deployed.py {export,aoti}
upstream/index_copy_layout.py``): exported and run as exported it is right;
compiled by AOTInductor it reproduces, static or with dynamic dimensions.
The entry's ``deployed`` lists the releases.

Run: ``python upstream/index_copy_layout.py`` (exit status 1 where it
reproduces).
"""

import sys

import torch


def program(c: torch.Tensor) -> torch.Tensor:
    c.index_copy_(0, torch.tensor([1]), c.index_select(0, torch.tensor([0])))
    return c * 2


def strides(function) -> tuple[int, ...]:
    torch._dynamo.reset()
    return function(torch.randn(64, 65).t()).stride()


def reproduces() -> bool:
    return strides(program) != strides(torch.compile(program, fullgraph=True))


if __name__ == "__main__":
    print(f"torch {torch.__version__}")
    print(f"eager:    strides {strides(program)}")
    print(f"compiled: strides {strides(torch.compile(program, fullgraph=True))}")
    sys.exit(int(reproduces()))
