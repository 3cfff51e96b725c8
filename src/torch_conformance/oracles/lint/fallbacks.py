"""An op namespace as a registry: its ops, and how Inductor lowers each.

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

import torch

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
        try:
            packet = getattr(getattr(torch.ops, ns), name)
            found.append(getattr(packet, overload or "default"))
        except AttributeError:
            # A kernel or fake registered for a name no schema defines (its
            # library failed to load): no op to lint.
            continue
    return found


def lowering_of(op: torch._ops.OpOverload) -> str:
    """How Inductor compiles ``op``: its own lowering, an explicit
    fallback, a decomposition first, or an implicit fallback."""
    from torch._inductor.decomposition import select_decomp_table
    from torch._inductor.lowering import fallbacks, lowerings

    if op in lowerings:
        return EXPLICIT_FALLBACK if op in fallbacks else LOWERING
    if op in select_decomp_table() or torch._C._dispatch_has_kernel_for_dispatch_key(
        op.name(), "CompositeImplicitAutograd"
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
