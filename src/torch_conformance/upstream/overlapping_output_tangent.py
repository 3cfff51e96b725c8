"""The gradient of a compiled program that returns an ``unfold`` view whose
windows overlap is wrong where they overlap.

``(x * 2).unfold(1, 3, 2)`` on ``x`` of shape [1, 5, 1]: windows 0 and 1 share
element 2, so its gradient sums the upstream gradient of both. Compiled
(``aot_eager`` already), AOTAutograd first copies the upstream gradient into
a tensor laid out as the output is, whose two windows share that element:
one window's value overwrites the other's, and the backward then reads it
twice. Expanded (stride-0) outputs raise instead (pytorch/pytorch#184088,
fixed by pytorch/pytorch#184519 for stride 0 only).

Run: ``python upstream/overlapping_output_tangent.py`` (exit status 1 where it
reproduces).
"""

import sys

import torch


def program(x: torch.Tensor) -> torch.Tensor:
    return (x * 2).unfold(1, 3, 2)


def gradient(function) -> list[float]:
    x = torch.arange(5.0).reshape(1, 5, 1).requires_grad_()
    upstream = torch.arange(1.0, 7.0).reshape(1, 2, 1, 3)
    (grad,) = torch.autograd.grad(function(x), x, upstream)
    return grad.flatten().tolist()


def reproduces() -> bool:
    torch._dynamo.reset()
    return gradient(program) != gradient(torch.compile(program, backend="aot_eager"))


if __name__ == "__main__":
    print(f"torch {torch.__version__}")
    print(f"eager:    {gradient(program)}")
    torch._dynamo.reset()
    print(f"compiled: {gradient(torch.compile(program, backend='aot_eager'))}")
    sys.exit(int(reproduces()))
