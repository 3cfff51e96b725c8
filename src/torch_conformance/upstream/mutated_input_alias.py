"""After an op mutates a graph input, a copy of it comes back as a view of
the input.

Upstream: pytorch/pytorch#195451 (fix PR pytorch/pytorch#195484).

``x = buffer[1]; op(x); return x.clone()``, where ``op`` mutates ``x`` in
place (a custom op or aten ``mul_``), compiled, returns a tensor that shares
storage with ``buffer`` (a reinplaced ``generalized_scatter`` removes the
clone); a ``cat`` of that one tensor does the same. Writing to the result
then changes the input.

Expected: a fresh tensor, as in eager. Actual (torch 2.11 to 2.15.0): a view of
``buffer`` at storage offset 5.

Under AOTInductor (the exported program compiled by
``aoti_compile_and_package``; torch 2.11 to 2.15) the copy is a view of
``buffer`` too; with dynamic dimensions the op's write to ``buffer[1]``
also lands at offset 0 (pytorch/pytorch#198068's fault, through one
``select``).
``torch.export`` alone is right.

Run: ``python upstream/mutated_input_alias.py`` (exit status 1 where it reproduces).
"""

import sys

import torch


@torch.library.custom_op("upstream_repro::double_row_", mutates_args=("x",))
def double_(x: torch.Tensor) -> None:
    x.mul_(2)


def clone_row(buffer: torch.Tensor) -> torch.Tensor:
    x = buffer[1]
    double_(x)
    return x.clone()


def cat_row(buffer: torch.Tensor) -> torch.Tensor:
    x = buffer[1]
    double_(x)
    return torch.cat([x.reshape(-1)])


def aliases(program) -> bool:
    """The compiled ``program``'s result shares storage with its input."""
    buffer = torch.arange(15.0).reshape(3, 5)
    torch._dynamo.reset()
    out = torch.compile(program, fullgraph=True)(buffer)
    return out.untyped_storage().data_ptr() == buffer.untyped_storage().data_ptr()


def reproduces() -> bool:
    return aliases(clone_row) or aliases(cat_row)


if __name__ == "__main__":
    print(f"torch {torch.__version__}")
    for program in (clone_row, cat_row):
        shared = aliases(program)
        print(f"{program.__name__}: expected a fresh tensor, got "
              + ("a view of the input" if shared else "a fresh tensor"))  # fmt: skip
    sys.exit(int(reproduces()))
