"""Inductor's CPU backend cannot compile a write into part of a float8
intermediate.

``u = t.clone(); u[0] = u[1]`` on a ``float8_e4m3fn`` tensor of shape [8, 4]:
eagerly a copy of row 1 onto row 0. Functionalized, the write is a
``select_scatter`` (a ``slice_scatter`` for ``u[1:3] = ...``), which Inductor
lowers to a ``where`` between a Bool mask of the written positions and the
float8 values; the C++ backend's dtype propagation then promotes Bool with
the float8 type and fails (``RuntimeError: Promotion for Float8 Types is not
supported, attempted to promote Bool and Float8_e4m3fn``, raised in
``deduce_node_dtype_by_inputs``). The same write into a graph input
compiles. Found by the suite's spec-less run of a float8 quantization
library, around an op whose float8 output the program wrote. No upstream
report found.

Run: ``python upstream/float8_masked_write.py`` (exit status 1 where it
reproduces).
"""

import sys

import torch

COMPLAINT = "Promotion for Float8 Types is not supported, attempted to promote Bool and Float8"


def program(t: torch.Tensor) -> torch.Tensor:
    u = t.clone()
    u[0] = u[1]
    return u


def compiled() -> str:
    t = torch.linspace(-3, 3, 32).reshape(8, 4).to(torch.float8_e4m3fn)
    try:
        out = torch.compile(program, fullgraph=True)(t)
    except Exception as error:
        if COMPLAINT not in str(error):
            raise
        return f"fails: {COMPLAINT}_e4m3fn"
    same = torch.equal(out.view(torch.uint8), program(t).view(torch.uint8))
    return f"compiles (values {'equal' if same else 'differ'})"


if __name__ == "__main__":
    print(f"torch {torch.__version__}")
    print("eager:    row 1 copied onto row 0")
    answer = compiled()
    print(f"compiled: {answer}")
    sys.exit(int(answer.startswith("fails")))
