"""With dynamic shapes, an unfold of an unfold of a graph input's view whose
size is an int input comes back with contiguous strides, which its storage
cannot hold.

Upstream: none found (nearest: pytorch/pytorch#197431, an out-of-bounds
as_strided; #183888, unfold then abs_); this script is the report.

``buffer.narrow(0, 0, n).reshape(-1).unfold(0, 6, 2).unfold(1, 4, 1)``,
compiled with ``dynamic=True`` and called with ``n = 2`` on a [5, 416]
buffer: eager returns a [414, 3, 4] view with strides (2, 1, 1); Inductor
(2.11 to 2.15) builds the output with strides (12, 4, 1) and fails with
``setStorage: sizes [414, 3, 4], strides [12, 4, 1] ... out of bounds``.
``aot_eager`` is right, and so is Inductor with a static compile, with one
unfold, or when the narrowed length is not an int input.

Deployed instead (``python upstream/deployed.py {export,aoti}
upstream/dynamic_double_unfold.py``): exported and run as exported it is
right; AOTInductor raises no error but returns a fresh contiguous tensor,
strides (12, 4, 1), static or with dynamic dimensions (values right). The
entry's ``deployed`` lists the releases.

Run: ``python upstream/dynamic_double_unfold.py`` (exit status 1 where it
reproduces).
"""

import sys

import torch


def windows(buffer: torch.Tensor, n: int) -> torch.Tensor:
    return buffer.narrow(0, 0, n).reshape(-1).unfold(0, 6, 2).unfold(1, 4, 1)


def compiled() -> str:
    torch._dynamo.reset()
    buffer = torch.arange(5 * 416.0).view(5, 416)
    try:
        out = torch.compile(windows, dynamic=True, fullgraph=True)(buffer, 2)
    except RuntimeError as error:
        return f"RuntimeError: {str(error).splitlines()[0]}"
    same = torch.equal(out, windows(buffer, 2)) and out.stride() == (2, 1, 1)
    return f"strides {out.stride()}, values {'equal' if same else 'differ'}"


def reproduces() -> bool:
    return not compiled().endswith("values equal")


if __name__ == "__main__":
    print(f"torch {torch.__version__}")
    print("eager:    strides (2, 1, 1)")
    print(f"compiled: {compiled()}")
    sys.exit(int(reproduces()))
