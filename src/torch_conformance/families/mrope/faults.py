"""An injected compiler fault: seed 004's miscompile, reproduced on the CPU.

The upstream bug (pytorch/pytorch#193183: vLLM's ``apply_interleaved_rope``
on an H100, torch 2.12 and 2.13) was not in Inductor's or Triton's code
generation: ptxas 12.9 miscompiled a pattern from LLVM's SLP vectorizer, and
a stride-3 ``slice_scatter`` wrote its values cyclically shifted, so the old
``apply_interleaved_rope`` gave wrong values under ``torch.compile``. Triton
3.8.0, shipped with torch 2.14, fixed it (triton-lang/triton PRs #11341,
#11356 and #11163). No CPU path reaches it. This Inductor post-grad pass
mis-lowers every step-3 ``slice_scatter`` the same way (the written values
rolled by one along the sliced dimension), so the suite can show that it
flags the slice-assignment form, not the ``torch.where`` form, shrinks the
Case and names Inductor as the stage at fault.

It is a Mode only a run that names it uses (``--modes=inductor_shifted_slice_scatter``).
"""

from __future__ import annotations

import torch

from torch_conformance.oracles.modes.injected import InjectedFault, calls, fault_mode


class ShiftedSliceScatter(InjectedFault):
    """Every step-3 ``slice_scatter`` writes its source rolled by one."""

    def rewrite(self, graph: torch.fx.Graph) -> None:
        aten = torch.ops.aten
        for node in calls(graph, aten.slice_scatter.default):
            base, source, dim, *bounds = node.args
            if (bounds[2:] or [1])[0] != 3:
                continue
            # roll(source, 1, dim) as the decomposed ops a post-grad graph holds.
            with graph.inserting_before(node):
                last = graph.call_function(aten.slice.Tensor, (source, dim, -1))
                rest = graph.call_function(aten.slice.Tensor, (source, dim, 0, -1))
                rolled = graph.call_function(aten.cat.default, ([last, rest], dim))
            value = source.meta["val"]
            last.meta["val"] = value.narrow(dim, value.shape[dim] - 1, 1)
            rest.meta["val"] = value.narrow(dim, 0, value.shape[dim] - 1)
            rolled.meta["val"] = torch.cat([last.meta["val"], rest.meta["val"]], dim)
            node.replace_input_with(source, rolled)


SHIFTED_SLICE_SCATTER = fault_mode(
    ShiftedSliceScatter,
    "inductor_shifted_slice_scatter",
    "every step-3 slice_scatter writes its values rolled by one (seed 004's miscompile on CUDA)",
)
