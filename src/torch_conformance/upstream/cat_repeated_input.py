"""A ``cat`` of one tensor with itself comes back contiguous under
torch.compile where eager keeps the tensor's channels-last layout.

Upstream: none found; this script is the report. The cause is Inductor's
decomposition of ``aten.cat`` (``torch/_inductor/decomposition.py``,
"avoid concat for single, repeated input"): where every input is the same
tensor it computes ``x.unsqueeze(d).expand(...).flatten(d, d + 1).clone()``,
which is laid out contiguously, while eager's ``cat`` follows the inputs'
memory format.

``torch.cat([x, x], 1)`` with ``x`` of shape [2, 3, 2, 2] in channels-last
layout: eager returns strides (24, 1, 12, 6), Inductor (24, 4, 2, 1); the
values agree. ``aot_eager`` is right and ``aot_eager_decomp_partition``
reproduces it. A cat of two different channels-last tensors keeps their
layout, and so does a 5-D cat in channels_last_3d (wrong the same way when
it repeats one tensor).

Deployed instead (``python upstream/deployed.py {export,aoti}
upstream/cat_repeated_input.py``): the entry's ``deployed`` lists where it
reproduces.

Run: ``python upstream/cat_repeated_input.py`` (exit status 1 where it
reproduces).
"""

import sys

import torch


def program(x: torch.Tensor) -> torch.Tensor:
    return torch.cat([x, x], 1)


def strides(function) -> tuple[int, ...]:
    torch._dynamo.reset()
    x = torch.randn(2, 3, 2, 2).to(memory_format=torch.channels_last)
    return function(x).stride()


def reproduces() -> bool:
    return strides(program) != strides(torch.compile(program, fullgraph=True))


if __name__ == "__main__":
    print(f"torch {torch.__version__}")
    print(f"eager:    strides {strides(program)}")
    print(f"compiled: strides {strides(torch.compile(program, fullgraph=True))}")
    sys.exit(int(reproduces()))
