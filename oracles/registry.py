"""An op namespace as a registry: its ops, their fakes, and how Inductor
lowers each.

Inductor compiles a custom op without a lowering by falling back to its
kernel. Where no fallback is registered it makes one on the spot (an
*implicit* fallback), after formatting a diagnostic about the missing
lowering; one serving stack saw that path make a compile of a large graph
take 10-15 minutes instead of 2-3, so it registers a fallback for every op
of its registry with ``make_fallback(op, warn=False)`` once its compile
configuration is set. :func:`register_fallbacks` does that for whole
namespaces, idempotently.
"""

from __future__ import annotations

from typing import Any

import torch
from torch._library.utils import can_generate_trivial_fake_impl
from torch._subclasses.fake_tensor import FakeTensorMode

# How Inductor will compile an op (see ``lowering_of``).
LOWERING = "lowering"
EXPLICIT_FALLBACK = "explicit fallback"
IMPLICIT_FALLBACK = "implicit fallback"
DECOMPOSED = "decomposed"


def namespace_ops(namespace: str) -> list[torch._ops.OpOverload]:
    """Every op overload registered in ``namespace``, sorted by name."""
    found = []
    for qualified in sorted(torch._C._dispatch_get_all_op_names()):
        ns, _, rest = qualified.partition("::")
        if ns != namespace:
            continue
        name, _, overload = rest.partition(".")
        packet = getattr(getattr(torch.ops, ns), name)
        found.append(getattr(packet, overload or "default"))
    return found


def python_fake(op: torch._ops.OpOverload):
    """The op's Python fake (``register_fake``), or None."""
    return torch._library.simple_registry.singleton.find(op._schema.name).fake_impl.kernel


def _returns(op: torch._ops.OpOverload) -> str:
    return str(op._schema).rpartition(" -> ")[2]


def _matches(kind: torch.Type, value: Any) -> bool:
    if isinstance(kind, torch.OptionalType):
        return value is None or _matches(kind.getElementType(), value)
    if isinstance(kind, torch.TensorType):
        return isinstance(value, torch.Tensor)
    if isinstance(kind, torch.ListType):
        element = kind.getElementType()
        return isinstance(value, (list, tuple)) and all(_matches(element, v) for v in value)
    return not isinstance(value, (torch.Tensor, list, tuple)) and value is not None


def describe(value: Any) -> str:
    """A return value's structure in words: None, a Tensor, a tuple of 3 ..."""
    if value is None:
        return "None"
    if isinstance(value, torch.Tensor):
        return "a Tensor"
    if isinstance(value, (tuple, list)):
        kinds = ", ".join(
            "Tensor" if isinstance(v, torch.Tensor) else type(v).__name__ for v in value
        )
        return f"a {type(value).__name__} of {len(value)} ({kinds})"
    return f"a {type(value).__name__}"


def structure_problem(op: torch._ops.OpOverload, value: Any) -> str | None:
    """How the fake's return ``value`` breaks the schema's returns, or None."""
    returns = op._schema.returns
    if not returns:
        ok = value is None
    elif len(returns) == 1:
        ok = _matches(returns[0].type, value)
    else:
        ok = (
            isinstance(value, (tuple, list))
            and len(value) == len(returns)
            and all(_matches(r.type, v) for r, v in zip(returns, value, strict=True))
        )
    if ok:
        return None
    should = (
        f"return {_returns(op)}, as the kernel does, with its shapes, strides and aliasing"
        if returns
        else "return None"
    )
    return f"the schema declares -> {_returns(op)} but the fake returns {describe(value)}: {should}"


def call_fake(op: torch._ops.OpOverload, mode: FakeTensorMode, args: dict[str, Any]) -> Any:
    """The fake's raw result: a Python fake called directly (the dispatcher
    would reject a wrong structure with a bare TypeError), else the op."""
    fake = python_fake(op)
    arguments = op._schema.arguments
    positional = [args[a.name] for a in arguments if not a.kwarg_only and a.name in args]
    keywords = {a.name: args[a.name] for a in arguments if a.kwarg_only and a.name in args}
    if fake is None:
        return op(*positional, **keywords)
    context = torch._library.fake_impl.FakeImplCtx(mode, op)
    with torch._library.fake_impl.set_ctx_getter(lambda: context):
        return fake(*positional, **keywords)


def fake_result(op: torch._ops.OpOverload, case: Any) -> tuple[Any, dict[str, Any]]:
    """The fake's raw result on ``case``'s arguments (FakeTensors with the
    Case's shapes and strides), and those arguments."""
    mode = FakeTensorMode()
    with mode:
        buffers = {name: torch.empty(b.shape, dtype=b.dtype) for name, b in case.buffers.items()}
        args = case.bind(buffers)
        return call_fake(op, mode, args), args


def fake_source(op: torch._ops.OpOverload) -> str | None:
    """What FakeTensor runs for ``op``, in words; None where nothing does."""
    name = op._schema.name
    if python_fake(op) is not None:
        return "a Python fake"
    for key, what in (("Meta", "a Meta kernel"), ("CompositeImplicitAutograd", "a decomposition")):
        if torch._C._dispatch_has_kernel_for_dispatch_key(name, key):
            return what
    if can_generate_trivial_fake_impl(op):
        return "the trivial fake torch makes for a mutating op that returns nothing"
    return None


def lowering_of(op: torch._ops.OpOverload) -> str:
    """How Inductor compiles ``op``: its own lowering, an explicit
    fallback, a decomposition first, or an implicit fallback."""
    from torch._inductor.decomposition import select_decomp_table
    from torch._inductor.lowering import fallbacks, lowerings

    if op in lowerings:
        return EXPLICIT_FALLBACK if op in fallbacks else LOWERING
    if op in select_decomp_table() or torch._C._dispatch_has_kernel_for_dispatch_key(
        op._schema.name, "CompositeImplicitAutograd"
    ):
        return DECOMPOSED
    return IMPLICIT_FALLBACK


def register_fallbacks(*namespaces: str) -> list[torch._ops.OpOverload]:
    """Register an explicit Inductor fallback for every op of ``namespaces``
    that would otherwise fall back implicitly; return those it registered.

    Call it after the compile configuration is set (as the registries that
    do this do), once the namespaces' ops are loaded; calling it again
    registers only ops loaded since.
    """
    from torch._inductor.lowering import make_fallback

    registered = []
    for namespace in namespaces:
        for op in namespace_ops(namespace):
            if lowering_of(op) == IMPLICIT_FALLBACK:
                make_fallback(op, warn=False)
                registered.append(op)
    return registered
