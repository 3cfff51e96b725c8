"""Dynamic shapes: an output that is a view of a graph input, which an
opaque op and aten ops mutate before the return, comes back as a view of the
input at storage offset 0 with contiguous strides.

Upstream: none found (nearest: pytorch/pytorch#198068, where the write-back
to a view at a nonzero offset lands at offset 0); this script is the report.

``x = buffer.narrow(0, 0, n); w = x.unfold(0, 3, 4); x.add_(1);
double_(w); x.mul_(2); return w``, where ``double_`` is a custom op that
mutates ``w`` in place, compiled with ``dynamic=True``: eager returns a
[4, 3] view of ``buffer`` with strides (4, 1); Inductor (2.11 to 2.15)
computes the output into a fresh contiguous buffer, and AOTAutograd
regenerates the view from that buffer's strides and offset:
``as_strided(buffer, (4, 3), (3, 1), 0)``, which holds other elements. The
buffer itself is right. A static compile is right, and so are
``aot_eager``, a view that is not an ``unfold``, and the program without
one of the three mutations.

Deployed instead (``python upstream/deployed.py {export,aoti}
upstream/dynamic_view_output.py``): exported and run as exported it is
right; AOTInductor with dynamic dimensions returns a fresh tensor with
strides (3, 1) (values right; static it is right). The entry's ``deployed``
lists the releases.

Run: ``python upstream/dynamic_view_output.py`` (exit status 1 where it
reproduces).
"""

import sys

import torch


@torch.library.custom_op("upstream_repro::double_windows_", mutates_args=("x",))
def double_(x: torch.Tensor) -> None:
    x.mul_(2)


@double_.register_fake
def _(x: torch.Tensor) -> None:
    return None


def windows(buffer: torch.Tensor, n: int) -> torch.Tensor:
    x = buffer.narrow(0, 0, n)
    w = x.unfold(0, 3, 4)
    x.add_(1)
    double_(w)
    x.mul_(2)
    return w


def run(function) -> torch.Tensor:
    torch._dynamo.reset()
    return function(torch.arange(16.0), 16)


def reproduces() -> bool:
    want = run(windows)
    got = run(torch.compile(windows, fullgraph=True, dynamic=True))
    return want.stride() != got.stride() or not torch.equal(want, got)


if __name__ == "__main__":
    print(f"torch {torch.__version__}")
    for name, function in (
        ("eager", windows),
        ("compiled", torch.compile(windows, fullgraph=True, dynamic=True)),
    ):
        result = run(function)
        print(f"{name + ':':10} strides {result.stride()}, offset {result.storage_offset()}")
        print(f"{'':10} {result.tolist()}")
    sys.exit(int(reproduces()))
