"""An injected compiler fault: seed 004's miscompile, reproduced on the CPU.

The upstream bug (pytorch/pytorch#193183) was in Triton's LLVM code
generation on CUDA: a stride-3 ``slice_scatter`` wrote its values cyclically
shifted, so the old ``apply_interleaved_rope`` gave wrong values under
``torch.compile``. No CPU path reaches it. This Inductor post-grad pass
mis-lowers every step-3 ``slice_scatter`` the same way (the written values
rolled by one along the sliced dimension), so the suite can show that it
flags the slice-assignment form, not the ``torch.where`` form, shrinks the
Case and names Inductor as the stage at fault.

It is a Mode only a run that names it uses (``--modes=inductor_shifted_slice_scatter``).
"""

from __future__ import annotations

import contextlib
import inspect
from collections.abc import Iterator

import torch
from torch._inductor import config as inductor_config
from torch._inductor.custom_graph_pass import CustomGraphPass

from oracles.modes.compiled import Compiled


class ShiftedSliceScatter(CustomGraphPass):
    """Every step-3 ``slice_scatter`` writes its source rolled by one."""

    def __call__(self, graph: torch.fx.Graph) -> None:
        aten = torch.ops.aten
        for node in list(graph.nodes):
            if node.target is not aten.slice_scatter.default:
                continue
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

    def uuid(self) -> str:
        return "shifted-step-3-slice-scatter"


@contextlib.contextmanager
def shifted_slice_scatter() -> Iterator[None]:
    with inductor_config.patch(post_grad_custom_post_pass=ShiftedSliceScatter()):
        yield


# What a repro script runs instead: the pass's own source, then the patch.
SCRIPT_SETUP = "\n".join(
    (
        "from torch._inductor.custom_graph_pass import CustomGraphPass",
        "",
        "",
        inspect.getsource(ShiftedSliceScatter),
        "torch._inductor.config.post_grad_custom_post_pass = ShiftedSliceScatter()",
    )
)

SHIFTED_SLICE_SCATTER = Compiled(
    "inductor_shifted_slice_scatter",
    "Inductor with an injected fault: every step-3 slice_scatter writes its values "
    "rolled by one (seed 004's Triton miscompile)",
    settings=shifted_slice_scatter,
    script_setup=SCRIPT_SETUP,
)
