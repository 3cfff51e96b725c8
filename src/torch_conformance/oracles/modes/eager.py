"""``eager``: the op, or the Case's program around it, on real tensors."""

from __future__ import annotations

from torch_conformance.oracles.core.buffers import Case
from torch_conformance.oracles.core.observation import Observation
from torch_conformance.oracles.core.specification import Spec
from torch_conformance.oracles.modes.mode import OP_ALONE, Mode, Run, observe, snapshot
from torch_conformance.oracles.modes.programs import of_buffers


class Eager(Mode):
    name = "eager"
    what = "the op, or the Case's program around it, on real tensors"

    def run(self, spec: Spec, case: Case, how: Run = OP_ALONE) -> Observation:
        """The op called on the Case's arguments (its Observation holds them),
        or the Case's program on its buffers."""
        buffers = case.allocate()
        before = snapshot(buffers)
        if how.program:
            names, run = of_buffers(spec, case)
            return observe(
                self.name, lambda: run(*(buffers[n] for n in names)), {}, buffers, before
            )
        args = case.bind(buffers)
        op = spec.resolve()
        return observe(self.name, lambda: op(**args), args, buffers, before)


EAGER = Eager()
