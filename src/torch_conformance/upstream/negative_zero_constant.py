"""Dynamic shapes: a float argument of -0.0 reaches a custom op as +0.0.

No upstream report found (nearest: pytorch/pytorch#189799, Inductor's handling of
-0.0 in arithmetic, another path).

``first_set(x, value)`` is a custom op that returns ``x`` with its first
element set to ``value``. A program that calls it with a closure constant
``value = -0.0``, compiled with ``dynamic=True``, passes +0.0: AOTAutograd
turns the constant's sign away (the ``eager`` backend, Dynamo alone, keeps
it, and so does a static compile).

Expected: out[0] is -0.0, as in eager. Actual (torch 2.11 to 2.15.0): +0.0.

Deployed instead (``python upstream/deployed.py {export,aoti}
upstream/negative_zero_constant.py``): exported and run as exported it is
right; compiled by AOTInductor it is right too: export keeps the -0.0 a
constant. Measured on torch 2.11 to 2.15.

Run: ``python upstream/negative_zero_constant.py`` (exit status 1 where it reproduces).
"""

import math
import sys

import torch


@torch.library.custom_op("upstream_repro::first_set", mutates_args=())
def first_set(x: torch.Tensor, value: float) -> torch.Tensor:
    out = x.clone()
    out[0] = value
    return out


@first_set.register_fake
def _(x, value):
    return torch.empty_like(x)


def first(backend: str = "inductor") -> float:
    value = -0.0  # a closure variable, as a compiled program's constants are

    def program(x):
        return first_set(x, value)

    torch._dynamo.reset()
    compiled = torch.compile(program, backend=backend, fullgraph=True, dynamic=True)
    return float(compiled(torch.ones(2))[0])


def reproduces(backend: str = "inductor") -> bool:
    return math.copysign(1, first(backend)) > 0


if __name__ == "__main__":
    print(f"torch {torch.__version__}: expected out[0] = -0.0, got {first()}")
    sys.exit(int(reproduces()))
