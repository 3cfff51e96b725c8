"""A kernel's declared domain: the inputs it promises to handle.

Real kernels accept less than their schema says: some dtypes only, some
arguments contiguous, some ranks. A spec declares that as a Domain; the
family strategies draw inside it, and no Case outside it is ever checked.
Just outside the domain is a question of its own, answered by
``edge_cases``: Cases that break one rule each, to see whether the kernel
refuses them or silently computes something.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from typing import Any

import torch

from torch_conformance.oracles.core.buffers import Buffer, Case, View

# Floating dtypes an out-of-domain Case may take, in order of preference.
_FLOATS = (torch.float32, torch.bfloat16, torch.float16, torch.float64)


@dataclasses.dataclass(frozen=True)
class Domain:
    """What a kernel handles.

    - ``dtypes``: the floating dtypes its floating tensor arguments may have.
    - ``contiguous``: arguments that must be contiguous.
    - ``ranks``: per argument, the ranks it may have.
    - ``rule``: ``rule(args) -> str | None`` on the bound arguments (meta
      tensors), for anything else: a reason the Case is outside, or None.
    """

    dtypes: tuple[torch.dtype, ...] | None = None
    contiguous: tuple[str, ...] = ()
    ranks: Mapping[str, tuple[int, ...]] = dataclasses.field(default_factory=dict)
    rule: Callable[[dict[str, Any]], str | None] | None = None

    def violations(self, case: Case) -> list[str]:
        """Why ``case`` lies outside the domain (empty: inside)."""
        args = case.bind(case.meta_buffers())
        found = []
        for name, value in args.items():
            if not isinstance(value, torch.Tensor):
                continue
            if self.dtypes is not None and value.is_floating_point():
                if value.dtype not in self.dtypes:
                    found.append(f"{name} is {value.dtype}")
            if name in self.contiguous and not value.is_contiguous():
                found.append(f"{name} is not contiguous (strides {tuple(value.stride())})")
            if name in self.ranks and value.dim() not in self.ranks[name]:
                found.append(f"{name} is {value.dim()}-D")
        if self.rule is not None:
            reason = self.rule(args)
            if reason:
                found.append(reason)
        return found


def edge_cases(domain: Domain, case: Case) -> list[tuple[str, Case]]:
    """Cases just outside ``domain``, each breaking one rule of it from
    ``case``: a contiguous argument made strided (every stride doubled, a
    column of a wider buffer), or the floating buffers in a dtype outside it.
    Each comes with the rule it breaks."""
    edges = []
    for name in domain.contiguous:
        view = case.args.get(name)
        if isinstance(view, View):
            edge = _strided(case, name, view)
            if not edge.bind(edge.meta_buffers())[name].is_contiguous():  # one element is
                edges.append((f"{name} not contiguous", edge))
    if domain.dtypes is not None:
        other = next((d for d in _FLOATS if d not in domain.dtypes), None)
        if other is not None:
            buffers = {
                name: dataclasses.replace(b, dtype=other) if b.dtype.is_floating_point else b
                for name, b in case.buffers.items()
            }
            edges.append(
                (f"floating arguments in {other}", dataclasses.replace(case, buffers=buffers))
            )
    return edges


def _strided(case: Case, name: str, view: View) -> Case:
    """``case`` with argument ``name`` in a buffer of its own, every stride doubled."""
    shape = tuple(case.bind(case.meta_buffers())[name].shape)
    source = case.buffers[view.buffer]
    buffer = f"{name}_strided"
    buffers = {**case.buffers, buffer: Buffer((*shape, 2), source.dtype, source.fill)}
    args = {**case.args, name: View(buffer, (("select", -1, 0),))}
    return dataclasses.replace(case, buffers=buffers, args=args)
