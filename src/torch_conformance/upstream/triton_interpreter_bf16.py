"""Triton's interpreter multiplies two bfloat16 values wrongly.

A documented limitation: Triton's debugging guide says the interpreter
"does not support operations on bfloat16" (triton-lang/triton#4972). In
Triton's interpreter (``TRITON_INTERPRET=1``, how Triton kernels run without
a GPU) a kernel that loads two bfloat16 tensors and stores their product
gives garbage (``-1.125 * -0.5703`` comes back as about ``-3e+24``); the
same kernel in float16 or float32 is right. torch computes the product in
float32 and rounds it to bfloat16 once, as Triton does on a GPU.

Run: ``python upstream/triton_interpreter_bf16.py`` (exit status 1 where it
reproduces).
"""

import os
import sys

os.environ["TRITON_INTERPRET"] = "1"  # before Triton is imported

import torch  # noqa: E402
import triton  # noqa: E402
import triton.language as tl  # noqa: E402


@triton.jit
def multiply(a_ptr, b_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.arange(0, BLOCK)
    mask = offsets < n
    a = tl.load(a_ptr + offsets, mask=mask)
    b = tl.load(b_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, a * b, mask=mask)


def products(dtype: torch.dtype) -> tuple[torch.Tensor, torch.Tensor]:
    """What torch and Triton's interpreter give for the same products."""
    a = torch.tensor([-1.125, 0.5, 3.0, -2.25], dtype=dtype)
    b = torch.tensor([-0.5703125, 0.75, -1.5, 4.0], dtype=dtype)
    out = torch.empty_like(a)
    multiply[(1,)](a, b, out, a.numel(), BLOCK=4)
    return a * b, out


def reproduces() -> bool:
    expected, got = products(torch.bfloat16)
    return not torch.equal(expected.view(torch.int16), got.view(torch.int16))


if __name__ == "__main__":
    print(f"triton {triton.__version__}, torch {torch.__version__}")
    for dtype in (torch.float32, torch.float16, torch.bfloat16):
        expected, got = products(dtype)
        print(f"{str(dtype).removeprefix('torch.'):9s} torch: {expected.tolist()}")
        print(f"{'':9s} interpreter: {got.tolist()}")
    sys.exit(int(reproduces()))
