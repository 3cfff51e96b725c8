"""Triton's interpreter refuses a load masked by a comparison of scalar arguments.

No upstream report found. In Triton's interpreter (``TRITON_INTERPRET=1``,
how Triton kernels run without a GPU) comparing two scalar kernel arguments
gives an int1 value whose data is int64, and a ``tl.load`` or ``tl.store``
masked by it raises ``ValueError('mask has unsupported dtype')``. Compiled
Triton accepts the same kernel. Inductor writes exactly this mask for the
bounds check of a view whose storage offset is symbolic (a narrow of a graph
input under dynamic shapes, with ``cpu_backend="triton"``): such programs
cannot run in the interpreter at all.

Run: ``python upstream/triton_interpreter_scalar_mask.py`` (exit status 1
where it reproduces).
"""

import os
import sys

os.environ["TRITON_INTERPRET"] = "1"  # before Triton is imported

import torch  # noqa: E402
import triton  # noqa: E402
import triton.language as tl  # noqa: E402


@triton.jit
def element(source_ptr, out_ptr, start, end, BLOCK: tl.constexpr):
    # Inductor's bounds check of a view at a symbolic offset, as it writes it.
    inside = (start >= 0) & (start < end)
    value = tl.load(source_ptr + tl.broadcast_to(start, [BLOCK]), inside, other=0.0)
    tl.store(out_ptr + tl.arange(0, BLOCK), value)


def run() -> str:
    """What the kernel gives for ``source[2]``, or what it raises."""
    source, out = torch.arange(4, dtype=torch.float32), torch.zeros(1)
    try:
        element[(1,)](source, out, 2, 4, BLOCK=1)
    except Exception as error:  # noqa: BLE001 - the fault is what it raises
        return f"raises {type(error).__name__}: {error}"
    return f"gives {out.item()!r}"


if __name__ == "__main__":
    print(f"triton {triton.__version__}, torch {torch.__version__}")
    got = run()
    print(f"source[2] through a mask of scalar comparisons: {got} (expected: gives 2.0)")
    sys.exit(int(got != "gives 2.0"))
