"""Inductor refuses to compile a ``view`` of a ``cat`` that eager allows: it
gives the ``cat`` a layout that follows a permuted input's stride order.

Upstream: none found (nearest: pytorch/pytorch#198364, ops whose compiled
strides differ from eager's); this script is the report.

``x = buffer[:1, :2, :1].permute(1, 0, 2)`` (shape [2, 1, 1]);
``torch.cat([x, x], 1).view(-1)``: eager's ``cat`` is contiguous and the view
works; Inductor (static or dynamic shapes) lays the ``cat`` out with strides
(1, 2, 4) and fails: ``Cannot view a tensor with shape torch.Size([2, 2, 1])
and strides (1, 2, 4) as a tensor with shape (4,)``. ``aot_eager`` is right.

Deployed instead (``python upstream/deployed.py {export,aoti}
upstream/cat_view.py``): exported and run as exported it is right;
AOTInductor fails to compile it as ``torch.compile`` does, static or with
dynamic dimensions. Measured on torch 2.11 to 2.15.

Run: ``python upstream/cat_view.py`` (exit status 1 where it reproduces).
"""

import sys

import torch


def program(buffer: torch.Tensor) -> torch.Tensor:
    x = buffer[:1, :2, :1].permute(1, 0, 2)
    return torch.cat([x, x], 1).view(-1)


def compiled() -> str:
    torch._dynamo.reset()
    buffer = torch.arange(60.0).view(3, 5, 4)
    try:
        out = torch.compile(program, fullgraph=True)(buffer)
    except Exception as error:
        lines = [line for line in str(error).splitlines() if "Cannot view" in line]
        return (lines or [type(error).__name__])[0].strip()
    return "values equal" if torch.equal(out, program(buffer)) else "values differ"


def reproduces() -> bool:
    return compiled() != "values equal"


if __name__ == "__main__":
    print(f"torch {torch.__version__}")
    print("eager:    a view of 4 elements")
    print(f"compiled: {compiled()}")
    sys.exit(int(reproduces()))
