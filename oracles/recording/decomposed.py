"""The float64 reference of an op that decomposes (CompositeImplicitAutograd).

Such an op has no kernel of its own: its body is PyTorch arithmetic, which
Inductor may legitimately reorder (a mean, a reciprocal), so its compiled run
is judged as a pure-PyTorch spec's is: within a stated ULP budget of the
same body run in float64, not bit for bit against eager. Integer outputs
(a quantized tensor) are held to eager's own, bit for bit.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch
from torch.utils._pytree import tree_map_only

from oracles.core.expectation import Expectation, Expected, exact
from oracles.core.observation import flatten_outputs

# ULPs a decomposed op's outputs may lie from the float64 run of its body,
# eager and compiled alike: a few roundings of a short body.
DECOMPOSED_ULP_BUDGET = 8


def decomposition_reference(name: str) -> Callable[..., Expectation]:
    """The reference of op ``name`` (``ns::op.overload``, looked up when first
    called): its body run on float64 copies of the floating arguments, each
    output's scale the body run on their magnitudes."""

    def reference(**args: Any) -> Expectation:
        op = torch._library.utils.lookup_op(name)

        def wide(magnitude: bool) -> dict[str, Any]:
            def widen(t: torch.Tensor) -> torch.Tensor:
                if not t.is_floating_point():
                    return t
                t = t.detach().to(torch.float64)
                return t.abs() if magnitude else t

            return tree_map_only(torch.Tensor, widen, args)

        eager = flatten_outputs(op(**args)) or ()
        values = flatten_outputs(op(**wide(False))) or ()
        scales = flatten_outputs(op(**wide(True))) or ()
        outputs = tuple(
            Expected(value.to(torch.float64), torch.maximum(value.abs(), scale.abs()).double())
            if isinstance(value, torch.Tensor) and out.is_floating_point()
            else exact(out)
            for out, value, scale in zip(eager, values, scales, strict=True)
            if isinstance(out, torch.Tensor)
        )
        return Expectation(outputs)

    return reference
