"""An in-place update through an ``unfold`` view that leaves some elements
uncovered zeroes those elements under torch.compile.

Upstream: pytorch/pytorch#198102 (fix PR pytorch/pytorch#198105).

``b.unfold(0, 4, 4).mul_(2)`` on ``b = arange(7) - 3`` (one window of 4,
elements 4 to 6 uncovered): eager doubles elements 0 to 3 and leaves the rest;
compiled, elements 4 to 6 become 0. Functionalization inverts the unfold with
``unfold_backward``, which zeroes what no window covers (and sums overlaps,
so -0.0 in a window comes back as +0.0).

Deployed instead (``python upstream/deployed.py {export,aoti}
upstream/unfold_write.py``): exported and run as exported it is right;
compiled by AOTInductor it reproduces, static or with dynamic dimensions.
The entry's ``deployed`` lists the releases.

Run: ``python upstream/unfold_write.py`` (exit status 1 where it reproduces).
"""

import sys

import torch


def program(b: torch.Tensor) -> torch.Tensor:
    b.unfold(0, 4, 4).mul_(2)
    return b


def run(function) -> list[float]:
    return function(torch.arange(7.0) - 3).tolist()


def reproduces() -> bool:
    torch._dynamo.reset()
    return run(program) != run(torch.compile(program, fullgraph=True))


if __name__ == "__main__":
    print(f"torch {torch.__version__}")
    print(f"eager:    {run(program)}")
    torch._dynamo.reset()
    print(f"compiled: {run(torch.compile(program, fullgraph=True))}")
    sys.exit(int(reproduces()))
