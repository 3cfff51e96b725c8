"""Triton reference kernels as torch ops, natively and in Triton's interpreter.

With a GPU a Triton kernel enters as ``torch.library.triton_op``: its launch
calls the kernel through ``wrap_triton`` (``launcher``), so Inductor sees into it. In
Triton's interpreter (no GPU: ``TRITON_INTERPRET=1``, which the suite's
entry points set, see ``kernels.interpreter``) ``wrap_triton`` would run the interpreted kernel on
FakeTensors under ``torch.compile``, which fails ("Cannot access data pointer
of Tensor"), so there the same launch enters as an opaque custom op with its
own fake. The kernel, its launch and its Cases are the same on both paths.
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Callable, Iterable
from typing import Any

import torch


def unavailable() -> str | None:
    """Why the Triton reference kernels cannot run on CPU tensors here, or None."""
    if importlib.util.find_spec("triton") is None:
        return "Triton is not installed: pip install triton (it installs on CPU-only machines)"
    if not interpreted():
        return (
            "the Cases are CPU tensors and Triton's interpreter is off (a GPU machine does not "
            "set TRITON_INTERPRET=1 by itself); --device=cuda runs these kernels natively"
        )
    return None


def interpreted() -> bool:
    """Whether Triton kernels run in Triton's interpreter in this process."""
    return os.environ.get("TRITON_INTERPRET") == "1"


def launcher(kernel: Any) -> Any:
    """``kernel`` as a launch calls it: through ``wrap_triton`` natively, so
    Inductor sees into the ``triton_op``; itself in the interpreter, where
    the launch runs eagerly inside an opaque custom op (and torch 2.11's
    ``wrap_triton`` refuses an interpreted kernel)."""
    return kernel if interpreted() else torch.library.wrap_triton(kernel)


def native_unavailable() -> str | None:
    """Why Triton kernels cannot run natively here, or None."""
    if importlib.util.find_spec("triton") is None:
        return "Triton is not installed: pip install triton"
    if not torch.cuda.is_available():
        return (
            "no CUDA device: native Triton needs a GPU (the interpreted specs run the same "
            "kernels here)"
        )
    if interpreted():
        return "TRITON_INTERPRET=1 is set: Triton kernels run in the interpreter, not natively"
    return None


def unavailable_on(device: str) -> str | None:
    """Why Triton kernels cannot run here on tensors of device type
    ``device`` (the CPU's through the interpreter, CUDA's natively), or None."""
    return unavailable() if device == "cpu" else native_unavailable()


def register(
    name: str,
    launch: Callable[..., None],
    *,
    mutates_args: Iterable[str],
    fake: Callable[..., object] | None = None,
) -> torch._ops.OpOverload:
    """Register ``launch`` (which calls its kernels through ``wrap_triton``) as
    op ``name``: a ``triton_op`` natively, an opaque custom op with ``fake``
    in the interpreter (None: the op returns nothing, so the fake does too)."""
    if interpreted():
        op = torch.library.custom_op(name, launch, mutates_args=tuple(mutates_args))
        op.register_fake(fake or _returns_nothing)
    else:
        op = torch.library.triton_op(name, launch, mutates_args=tuple(mutates_args))
    namespace, _, op_name = name.partition("::")
    return getattr(getattr(torch.ops, namespace), op_name).default


def on_cuda(name: str, writes: tuple[str, ...]) -> Callable[..., None]:
    """Op ``name`` (``namespace::op``, resolved when called) on CUDA copies of
    a Case's tensors, with their strides, its ``writes`` copied back and its
    outputs moved back to the Case's device: a CPU Case runs a native Triton
    kernel, in eager and compiled programs alike, and a CUDA Case runs it on
    copies of its own."""
    namespace, _, op_name = name.partition("::")

    def native(**args: object) -> object:
        op = getattr(getattr(torch.ops, namespace), op_name).default
        tensors = [v for v in args.values() if isinstance(v, torch.Tensor)]
        home = tensors[0].device if tensors else torch.device("cpu")
        moved = {k: _to_cuda(v) if isinstance(v, torch.Tensor) else v for k, v in args.items()}
        out = op(**moved)
        for written in writes:
            if isinstance(args[written], torch.Tensor):
                args[written].copy_(moved[written])
        return torch.utils._pytree.tree_map_only(torch.Tensor, lambda t: t.to(home), out)

    native.__name__ = native.__qualname__ = f"{op_name}_on_cuda"
    return native


def _to_cuda(tensor: torch.Tensor) -> torch.Tensor:
    copy = torch.empty_strided(tensor.shape, tensor.stride(), dtype=tensor.dtype, device="cuda")
    return copy.copy_(tensor)


def _returns_nothing(*args: object, **kwargs: object) -> None:
    return None
