"""Dynamic shapes: an in-place op's write-back to a view at a nonzero storage
offset lands at the wrong offset.

Upstream: pytorch/pytorch#198068 (fix PR pytorch/pytorch#198069).

A custom op that mutates its argument is called on ``buffer.narrow(0, 1,
1).narrow(1, 2, 3)``, a view at storage offset 7. Compiled with
``dynamic=True`` the doubled values land elsewhere in the buffer (Inductor
has no lowering for ``aten.sym_storage_offset``, so the wrapper passes
offset 0); a static compile and eager are right. One narrow takes another
path and is right.

Expected: the compiled call changes exactly the buffer that eager changes.
Actual (torch 2.11 to 2.15.0): 6 of 15 elements differ.

``torch.compile`` is affected, not AOTInductor alone, where the upstream
report found it. Exported (``torch.export``, dimensions ``Dim.AUTO``) and
run as exported it is right; compiled from that export by AOTInductor it
writes at offset 0 too (torch 2.11 to 2.15; ``python upstream/deployed.py aoti
upstream/dynamic_write_back.py``), and there a plain ``double_(buffer[1])``
is enough (see ``mutated_input_alias.py``).

Run: ``python upstream/dynamic_write_back.py`` (exit status 1 where it reproduces).
"""

import sys

import torch


@torch.library.custom_op("upstream_repro::double_", mutates_args=("x",))
def double_(x: torch.Tensor) -> None:
    x.mul_(2)


def write_back(buffer: torch.Tensor) -> None:
    double_(buffer.narrow(0, 1, 1).narrow(1, 2, 3))


def results(dynamic: bool = True) -> tuple[torch.Tensor, torch.Tensor]:
    """The buffer after the eager call and after the compiled one."""
    eager, compiled = torch.arange(15.0).reshape(3, 5), torch.arange(15.0).reshape(3, 5)
    write_back(eager)
    torch._dynamo.reset()
    torch.compile(write_back, fullgraph=True, dynamic=dynamic)(compiled)
    return eager, compiled


def reproduces(dynamic: bool = True) -> bool:
    eager, compiled = results(dynamic)
    return not torch.equal(eager, compiled)


if __name__ == "__main__":
    eager, compiled = results()
    print(f"torch {torch.__version__}\nexpected (eager):\n{eager}\nactual (compiled):\n{compiled}")
    sys.exit(int(not torch.equal(eager, compiled)))
