"""The compiled gradient of ``x.transpose(1, 2).unfold(0, 3, 1)`` writes out of
bounds on the CPU: the process crashes, or the gradient is wrong.

The backward of the unfold is a scatter-add into a tensor laid out as ``x``
while the gradient arrives transposed, so Inductor's CPU backend tiles the
kernel in two dimensions. With more than one thread it stores through
``atomic_add_vec``, and the index of that store gets the tile's inner offset
twice (``8*x1_inner`` where the stride is 4): it writes past the end of its
buffer. One thread takes a plain store and is right. Upstream:
pytorch/pytorch#191837 (fix PR pytorch/pytorch#191861).

The compiled gradient runs in a child process, since the write can corrupt
the heap. Run: ``python upstream/tile2d_atomic_add.py`` (exit status 1 where
it reproduces).
"""

import json
import subprocess
import sys

import torch

COMPILED = "--compiled"


def program(x: torch.Tensor) -> torch.Tensor:
    return (x * 2).transpose(1, 2).unfold(0, 3, 1)


def gradient(function, threads: int) -> list[float]:
    torch.set_num_threads(threads)
    x = torch.arange(60.0).reshape(3, 4, 5).requires_grad_()
    out = function(x)
    upstream = torch.arange(float(out.numel())).reshape(out.shape)
    (grad,) = torch.autograd.grad(out, x, upstream)
    return grad.flatten().tolist()


def compiled(threads: int) -> str:
    """The compiled gradient, or how its process died."""
    run = subprocess.run(
        [sys.executable, __file__, COMPILED, str(threads)], capture_output=True, text=True
    )
    if run.returncode != 0:
        return f"its process died (exit status {run.returncode})"
    return run.stdout.strip()


if __name__ == "__main__":
    if sys.argv[1:2] == [COMPILED]:
        function = torch.compile(program, backend="inductor", fullgraph=True)
        print(json.dumps(gradient(function, int(sys.argv[2]))))
        sys.exit(0)
    eager = json.dumps(gradient(program, 2))
    print(f"torch {torch.__version__}; eager: a gradient of 60 elements")
    for threads in (2, 1):
        got = compiled(threads)
        said = "agrees with eager" if got == eager else got
        if got != eager and got.startswith("["):
            wrong = sum(a != b for a, b in zip(json.loads(got), json.loads(eager), strict=True))
            said = f"{wrong} of 60 elements differ from eager"
        print(f"compiled, {threads} thread(s): {said}")
        if threads == 2:
            reproduces = got != eager
    sys.exit(int(reproduces))
