"""A clone of an intermediate, read before an opaque custom op mutates that
intermediate in place, comes back with the mutated values under Inductor.

``y = torch.cat([x, x], 1); x.fill_(0); z = y.clone(); z.add_(y); row =
z.narrow(0, 2, 1); double_(y)``, where ``double_`` doubles its argument in
place: eager returns ``row`` as twice ``y``'s row before ``double_``;
Inductor (not ``aot_eager``) returns four times it, as if ``double_`` ran
before the clone. Inductor's reinplacing of the functionalized
``double_`` is the stage: with ``disabled_passes="reinplace_inplaceable_ops"``
it is right. Each part is needed: without the write to the input
(``x.fill_``), or with ``z`` returned whole instead of the ``narrow``, it is
right. The mechanism looks like pytorch/pytorch#198131's (a copy of an
input's view gets the mutated values), here with a clone of an intermediate.

Deployed instead (``python upstream/deployed.py {export,aoti}
upstream/clone_read_after_mutation.py``): exported and run as exported, or
compiled by AOTInductor, it is right. Measured on torch 2.11 to 2.15.

Run: ``python upstream/clone_read_after_mutation.py`` (exit status 1 where it
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


def program(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    y = torch.cat([x, x], 1)
    x.fill_(0)
    z = y.clone()
    z.add_(y)
    row = z.narrow(0, 2, 1)
    double_(y)
    return row, y


def row(function) -> list[float]:
    torch._dynamo.reset()
    x = torch.arange(1.0, 49.0).reshape(3, 8, 2)
    return function(x)[0].reshape(-1).tolist()[:4]


def reproduces() -> bool:
    return row(program) != row(torch.compile(program, fullgraph=True))


if __name__ == "__main__":
    print(f"torch {torch.__version__}")
    print(f"eager:    row = {row(program)}")
    print(f"compiled: row = {row(torch.compile(program, fullgraph=True))}")
    sys.exit(int(reproduces()))
