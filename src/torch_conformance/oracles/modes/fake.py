"""``fake``: the op under FakeTensorMode, on the Case's views of fake buffers,
and the fake itself called on a Case."""

from __future__ import annotations

from typing import Any

import torch
from torch._subclasses.fake_tensor import FakeTensorMode
from torch.fx.experimental.symbolic_shapes import ShapeEnv
from torch.utils._pytree import tree_map_only

from torch_conformance.oracles.core.buffers import Case
from torch_conformance.oracles.core.observation import Observation
from torch_conformance.oracles.core.schema import python_fake
from torch_conformance.oracles.core.specification import Spec
from torch_conformance.oracles.modes.mode import OP_ALONE, Mode, Run, observe
from torch_conformance.oracles.modes.programs import around


def fake_mode() -> FakeTensorMode:
    """A FakeTensorMode as torch.compile runs fakes in: with a ShapeEnv, so a
    fake may size an output from data (``torch.library.get_ctx().new_dynamic_size()``)."""
    return FakeTensorMode(shape_env=ShapeEnv())


class Fake(Mode):
    name = "fake"
    what = "the op under FakeTensorMode, on the Case's views of fake buffers"

    def run(self, spec: Spec, case: Case, how: Run = OP_ALONE) -> Observation:
        """The op (or the Case's program) on fake tensors."""
        op = spec.resolve()
        # Values do not matter to a fake: the Case's views are made of meta
        # buffers and wrapped as fakes, so views of one buffer share fake
        # storage as q and k share qkv, at a fraction of what converting
        # real tensors costs.
        mode = fake_mode()
        # The dispatch cache pays for hashing every call and is rarely hit
        # by one Case's few calls, each at its own sizes.
        mode.cache_enabled = False
        wrap = mode.fake_tensor_converter.from_meta_and_device
        # FakeTensors of the device the Case lives on, as eager's tensors are.
        device = torch.device(case.device)
        args = tree_map_only(
            torch.Tensor,
            lambda meta: wrap(mode, meta, device),
            case.bind(case.meta_buffers()),
        )
        function = around(spec, case) if how.program else None

        def call() -> Any:
            with mode:
                return op(**args) if function is None else function(op, **dict(args))

        return observe(self.name, call, args, {}, {})


FAKE = Fake()


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
    mode = fake_mode()
    with mode:
        buffers = {
            name: torch.empty(b.shape, dtype=b.dtype, device=case.device)
            for name, b in case.buffers.items()
        }
        args = case.bind(buffers)
        return call_fake(op, mode, args), args
