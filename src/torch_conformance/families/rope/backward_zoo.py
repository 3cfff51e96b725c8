"""The rope family's backward zoo: a functional rope as a custom op with the
autograd formulas training libraries register, two of them wrong.

The backward of a rotation is the inverse rotation (the same, with ``sin``
negated). ``conformance_zoo::rope_grad_contiguous_only`` computes it on the
upstream gradient's storage as if it were contiguous, as a kernel that
indexes the gradient's data pointer does: right for the contiguous gradients
a test passes, wrong for the transposed or strided ones a model's backward
passes. ``conformance_zoo::rope_no_autograd`` registers no formula at all.
``conformance_zoo::rope_formula_on_kernel_key`` has a right formula at the
wrong dispatch key: an ``autograd.Function`` called inside its CPU kernel,
as a C++ extension does that wraps ``torch::autograd::Function`` in a kernel
registered for CPU. Eager records it; torch.compile traces the op's fake and
never runs it.
"""

from __future__ import annotations

import functools

import torch

from torch_conformance.families.rope import ops, reference
from torch_conformance.families.rope.specs import rope_spec
from torch_conformance.oracles.core.specification import Spec

_SCHEMA_ARGS = (
    "(Tensor positions, Tensor query, Tensor key, int head_size, Tensor cos_sin_cache, "
    "bool is_neox)"
)


def _rotated(positions, query, key, head_size, cos_sin_cache, is_neox, inverse=False):
    cache = cos_sin_cache
    if inverse:  # the inverse rotation: sin negated
        cos, sin = cache.chunk(2, dim=-1)
        cache = torch.cat((cos, -sin), dim=-1)
    q, k = ops.rotary_embedding_torch(positions, query, key, head_size, cache, is_neox)
    return q.contiguous(), k.contiguous()


def _as_if_contiguous(grad: torch.Tensor) -> torch.Tensor:
    """The gradient's storage read as a contiguous tensor of its shape."""
    return torch.as_strided(
        grad, grad.shape, torch.empty(grad.shape).stride(), grad.storage_offset()
    )


def _backward(read_gradient):
    def backward(ctx, grad_query, grad_key):
        positions, cache = ctx.saved_tensors
        grads = _rotated(
            positions,
            read_gradient(grad_query),
            read_gradient(grad_key),
            ctx.head_size,
            cache,
            ctx.is_neox,
            inverse=True,
        )
        return None, grads[0], grads[1], None, None, None

    return backward


def _setup_context(ctx, inputs, output):
    positions, _, _, head_size, cache, is_neox = inputs
    ctx.save_for_backward(positions, cache)
    ctx.head_size, ctx.is_neox = head_size, is_neox


def _fake(positions, query, key, head_size, cos_sin_cache, is_neox):
    return query.new_empty(query.shape), key.new_empty(key.shape)


_KERNEL_ARGS = _SCHEMA_ARGS[:-1] + ", Tensor forward_query, Tensor forward_key)"


class _RotationOnKernelKey(torch.autograd.Function):
    @staticmethod
    def forward(ctx, positions, query, key, head_size, cos_sin_cache, is_neox):
        _setup_context(ctx, (positions, query, key, head_size, cos_sin_cache, is_neox), None)
        return _rotated(positions, query, key, head_size, cos_sin_cache, is_neox)

    backward = staticmethod(_backward(lambda grad: grad))


def _formula_in_kernel(positions, query, key, head_size, cos_sin_cache, is_neox):
    return _RotationOnKernelKey.apply(positions, query, key, head_size, cos_sin_cache, is_neox)


def _backward_kernel(
    positions, grad_query, grad_key, head_size, cos_sin_cache, is_neox, forward_query, forward_key
):
    return _rotated(positions, grad_query, grad_key, head_size, cos_sin_cache, is_neox, True)


def _forward_layout_fake(
    positions, grad_query, grad_key, head_size, cos_sin_cache, is_neox, forward_query, forward_key
):
    """Gradients in the layout of the forward's inputs (a fused QKV slice's
    row stride, say), where the kernel returns contiguous ones."""
    return (
        torch.empty_strided(grad_query.shape, forward_query.stride(), dtype=grad_query.dtype),
        torch.empty_strided(grad_key.shape, forward_key.stride(), dtype=grad_key.dtype),
    )


def _save_inputs(ctx, inputs, output):
    positions, query, key, head_size, cache, is_neox = inputs
    ctx.save_for_backward(positions, cache, query, key)
    ctx.head_size, ctx.is_neox = head_size, is_neox


def _backward_op(ctx, grad_query, grad_key):
    positions, cache, query, key = ctx.saved_tensors
    grads = torch.ops.conformance_zoo.rope_backward_kernel(
        positions, grad_query, grad_key, ctx.head_size, cache, ctx.is_neox, query, key
    )
    return None, grads[0], grads[1], None, None, None


@functools.cache
def register() -> None:
    library = torch.library.Library("conformance_zoo", "FRAGMENT")  # noqa: TOR901
    for name, read_gradient in (
        ("rope_grad_contiguous_only", _as_if_contiguous),
        ("rope_no_autograd", None),
    ):
        library.define(f"{name}{_SCHEMA_ARGS} -> (Tensor, Tensor)")
        library.impl(name, _rotated, "CompositeExplicitAutograd")
        torch.library.register_fake(
            f"conformance_zoo::{name}",
            _fake,
            lib=library,
        )
        if read_gradient is not None:
            torch.library.register_autograd(
                f"conformance_zoo::{name}",
                _backward(read_gradient),
                setup_context=_setup_context,
                lib=library,
            )
    library.define(f"rope_backward_kernel{_KERNEL_ARGS} -> (Tensor, Tensor)")
    library.impl("rope_backward_kernel", _backward_kernel, "CompositeExplicitAutograd")
    torch.library.register_fake(
        "conformance_zoo::rope_backward_kernel", _forward_layout_fake, lib=library
    )
    library.define(f"rope_backward_wrong_fake{_SCHEMA_ARGS} -> (Tensor, Tensor)")
    library.impl("rope_backward_wrong_fake", _rotated, "CompositeExplicitAutograd")
    torch.library.register_fake("conformance_zoo::rope_backward_wrong_fake", _fake, lib=library)
    torch.library.register_autograd(
        "conformance_zoo::rope_backward_wrong_fake",
        _backward_op,
        setup_context=_save_inputs,
        lib=library,
    )
    library.define(f"rope_formula_on_kernel_key{_SCHEMA_ARGS} -> (Tensor, Tensor)")
    library.impl("rope_formula_on_kernel_key", _formula_in_kernel, "CPU")
    torch.library.register_fake("conformance_zoo::rope_formula_on_kernel_key", _fake, lib=library)
    register.library = library  # type: ignore[attr-defined]  # kept alive


def prepare() -> None:
    register()


prepare.registers = (__name__, "register")  # type: ignore[attr-defined]  # what a repro script calls


def _backward_spec(name: str) -> Spec:
    return rope_spec(
        name,
        f"conformance_zoo::{name}",
        reference=reference.rope_outputs,
        program=lambda op, **args: op(**args),
        prepare=prepare,
        grads=("query", "key"),
        families=("rope", "zoo", "backward"),
    )


SPECS = [
    _backward_spec("rope_grad_contiguous_only"),
    _backward_spec("rope_no_autograd"),
    _backward_spec("rope_backward_wrong_fake"),
    _backward_spec("rope_formula_on_kernel_key"),
]
