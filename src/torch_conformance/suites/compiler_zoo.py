"""Injected compiler faults in the shapes of the known ones.

Each known compiler fault (``upstream/known_faults.json``) lives in a shape
of program: a clone after a mutation, a flip read after a write, a write
through ``unfold``, a copy before a mutating op, a clone read after one, a
float8 scatter-add, a write into part of a float8 value.
These Modes break the same shapes of program another way (another pass,
another wrong answer), so the suite's tests can show that triage keeps them
blocking: a known fault never hides a new one. A run uses one only where ``--modes`` names it.
"""

from __future__ import annotations

import torch

from torch_conformance.oracles.modes.injected import InjectedFault, calls, fault_mode

aten = torch.ops.aten


class DroppedClone(InjectedFault):
    """A ``clone`` returns its input itself (the shape of #195451)."""

    def rewrite(self, graph: torch.fx.Graph) -> None:
        for node in calls(graph, aten.clone.default):
            node.replace_all_uses_with(node.args[0])
            graph.erase_node(node)


class ShiftedReverse(InjectedFault):
    """A ``flip`` rolls its first dimension by one instead (the shape of #198270)."""

    def rewrite(self, graph: torch.fx.Graph) -> None:
        for node in calls(graph, torch.ops.prims.rev.default):
            source, dims = node.args
            value, dim = source.meta["val"], dims[0]
            with graph.inserting_before(node):
                last = graph.call_function(aten.slice.Tensor, (source, dim, -1))
                rest = graph.call_function(aten.slice.Tensor, (source, dim, 0, -1))
                rolled = graph.call_function(aten.cat.default, ([last, rest], dim))
            last.meta["val"] = value.narrow(dim, value.shape[dim] - 1, 1)
            rest.meta["val"] = value.narrow(dim, 0, value.shape[dim] - 1)
            rolled.meta["val"] = torch.cat([last.meta["val"], rest.meta["val"]], dim)
            node.replace_all_uses_with(rolled)
            graph.erase_node(node)


class TripledDoubling(InjectedFault):
    """A product by 2 multiplies by 3 (the shape of a write through ``unfold``, #198102)."""

    def rewrite(self, graph: torch.fx.Graph) -> None:
        for node in calls(graph, aten.mul.Tensor):
            if node.args[1:] == (2,):
                node.args = (node.args[0], 3)


class PaddedDoubling(InjectedFault):
    """A product by 2 comes back as a view of a buffer with one more column:
    the right values in a layout eager never gives (the shape of #133512)."""

    def rewrite(self, graph: torch.fx.Graph) -> None:
        for node in calls(graph, aten.mul.Tensor):
            value = node.meta["val"]
            if node.args[1:] != (2,) or value.dim() == 0:
                continue
            with graph.inserting_after(node):
                padded = graph.call_function(aten.constant_pad_nd.default, (node, [0, 1]))
            with graph.inserting_after(padded):
                cut = graph.call_function(aten.slice.Tensor, (padded, -1, 0, value.shape[-1]))
            node.replace_all_uses_with(cut, delete_user_cb=lambda user, pad=padded: user is not pad)
            padded.meta["val"] = aten.constant_pad_nd.default(value, [0, 1])
            cut.meta["val"] = aten.slice.Tensor(padded.meta["val"], -1, 0, value.shape[-1])


class NegatedCopy(InjectedFault):
    """A copy from a view of another tensor copies the negated view (the shape
    of #198131)."""

    def rewrite(self, graph: torch.fx.Graph) -> None:
        views = (aten.select.int, aten.slice.Tensor, aten.view.default)
        for node in calls(graph, aten.copy.default) + calls(graph, aten.copy_.default):
            destination, source = node.args[:2]
            if not isinstance(source, torch.fx.Node) or source.target not in views:
                continue
            if source.args[0] is destination:
                continue
            with graph.inserting_before(node):
                negated = graph.call_function(aten.neg.default, (source,))
            negated.meta["val"] = -source.meta["val"]
            node.replace_input_with(source, negated)


class WeightedAdd(InjectedFault):
    """An ``add`` of two tensors adds its second operand twice (the shape of
    the clone read after a mutation)."""

    def rewrite(self, graph: torch.fx.Graph) -> None:
        for node in calls(graph, aten.add.Tensor):
            if isinstance(node.args[1], torch.fx.Node):
                node.kwargs = {**node.kwargs, "alpha": 2}


class RefusedViews(InjectedFault):
    """A graph with a ``cat`` or two ``unfold`` views fails to compile (the
    shapes of the cat-view and dynamic double-unfold faults)."""

    def rewrite(self, graph: torch.fx.Graph) -> None:
        if calls(graph, aten.cat.default) or len(calls(graph, aten.unfold.default)) > 1:
            raise RuntimeError("injected fault: Inductor refuses this graph's views")


class RefusedFloat8(InjectedFault):
    """A graph holding a float8 value fails to compile (the shapes of the
    float8 atomic add and masked write, refused by this pass instead)."""

    def rewrite(self, graph: torch.fx.Graph) -> None:
        for node in graph.nodes:
            value = node.meta.get("val")
            float8 = isinstance(value, torch.Tensor) and value.dtype.itemsize == 1
            if float8 and value.dtype.is_floating_point:
                raise RuntimeError("injected fault: Inductor refuses this graph's float8 values")


class FailedAssertion(InjectedFault):
    """A graph that mutates a tensor through an opaque custom op fails a bare
    assertion in this pass (the shape of the auto_functionalized
    decomposition assertion, raised elsewhere)."""

    def rewrite(self, graph: torch.fx.Graph) -> None:
        functionalized = (
            torch.ops.higher_order.auto_functionalized,
            torch.ops.higher_order.auto_functionalized_v2,
        )
        if any(node.target in functionalized for node in graph.nodes):
            raise AssertionError


FAULT_MODES = (
    fault_mode(DroppedClone, "inductor_dropped_clone", "a clone returns its input"),
    fault_mode(ShiftedReverse, "inductor_shifted_reverse", "a flip rolls by one instead"),
    fault_mode(TripledDoubling, "inductor_tripled_doubling", "a product by 2 multiplies by 3"),
    fault_mode(
        PaddedDoubling, "inductor_padded_doubling", "a product by 2 comes back in a padded layout"
    ),
    fault_mode(NegatedCopy, "inductor_negated_copy", "a copy copies the negated source"),
    fault_mode(WeightedAdd, "inductor_weighted_add", "an add adds its second operand twice"),
    fault_mode(
        RefusedViews, "inductor_refused_views", "a graph with a cat or two unfolds fails to compile"
    ),
    fault_mode(
        RefusedFloat8, "inductor_refused_float8", "a graph with a float8 value fails to compile"
    ),
    fault_mode(
        FailedAssertion,
        "inductor_failed_assertion",
        "a graph that mutates through an opaque op fails a bare assertion",
    ),
)
