"""A copy of a graph input's view, taken before an opaque custom op mutates
that view, comes back with the mutated values under Inductor.

Upstream: the mechanism of pytorch/pytorch#198131 (a copy of an input is
replaced by the input itself, so a later mutation leaks in; fix PR
pytorch/pytorch#198132), here with a mutating custom op.

``q = qkv.split([4, 4], -1)[0]; c.copy_(q); scale_(q)`` where ``scale_``
doubles its argument in place: eager leaves ``c`` equal to the old ``q``
(ones); Inductor (not ``aot_eager``) writes the doubled values (twos) into
``c``. With ``q`` a whole input rather than a view it is right.

Deployed instead (``python upstream/deployed.py {export,aoti}
upstream/copy_before_mutation.py``): exported and run as exported it is
right; compiled by AOTInductor it reproduces, static or with dynamic
dimensions. Measured on torch 2.11 to 2.15.

Run: ``python upstream/copy_before_mutation.py`` (exit status 1 where it
reproduces).
"""

import sys

import torch


@torch.library.custom_op("upstream_repro::double_", mutates_args=("x",))
def double_(x: torch.Tensor) -> None:
    x.mul_(2)


@double_.register_fake
def _(x: torch.Tensor) -> None:
    return None


def program(qkv: torch.Tensor, c: torch.Tensor) -> torch.Tensor:
    q = qkv.split([4, 4], -1)[0]
    c.copy_(q)
    double_(q)
    return q


def copied(function) -> list[float]:
    torch._dynamo.reset()
    c = torch.zeros(1, 4)
    function(torch.ones(1, 8), c)
    return c.reshape(-1).tolist()


def reproduces() -> bool:
    return copied(program) != copied(torch.compile(program, fullgraph=True))


if __name__ == "__main__":
    print(f"torch {torch.__version__}")
    print(f"eager:    c = {copied(program)}")
    print(f"compiled: c = {copied(torch.compile(program, fullgraph=True))}")
    sys.exit(int(reproduces()))
