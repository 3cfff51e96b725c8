"""The Modes a Case runs in, each giving an Observation.

- ``eager``: the op called on real tensors.
- ``fake``: the op called under FakeTensorMode on the Case's arguments,
  made as views of meta buffers and wrapped as fakes, so q and k of one qkv
  buffer share fake storage as the real ones share a buffer.
- ``program``: the spec's program (the op and the code around it) run
  eagerly, and ``inductor``: the same program compiled by Inductor with
  ``fullgraph=True``, the views made inside the graph.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch
from torch._subclasses.fake_tensor import FakeTensorMode

from oracles.case import Case
from oracles.compile import compiled_programs
from oracles.observation import Observation, flatten_outputs
from oracles.signature import BatchSignature, bind, signature_of
from oracles.spec import Spec

# Where Case.allocate puts every buffer.
_CASE_DEVICE = torch.device("cpu")


def _snapshot(buffers: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    return {name: buffer.clone() for name, buffer in buffers.items()}


def _observe(mode: str, call: Callable[[], Any], args, buffers, before) -> Observation:
    error, result = None, None
    try:
        result = call()
    except Exception as exc:  # the op's own failure is an observation
        error = exc
    return Observation(
        mode=mode,
        args=args,
        outputs=flatten_outputs(result),
        buffers_before=before,
        buffers_after=buffers,
        error=error,
    )


def run_eager(spec: Spec, case: Case, snapshot: bool = True) -> Observation:
    """``snapshot=False`` skips the copy of the buffers before the call."""
    buffers = case.allocate()
    before = _snapshot(buffers) if snapshot else {}
    args = case.bind(buffers)
    op = spec.resolve()
    return _observe("eager", lambda: op(**args), args, buffers, before)


def run_fake(spec: Spec, case: Case) -> Observation:
    op = spec.resolve()
    # Values do not matter to a fake: the Case's views are made of meta
    # buffers and wrapped as fakes, so views of one buffer share fake storage
    # as q and k share qkv, at a fraction of what converting real tensors costs.
    mode = FakeTensorMode()
    # The dispatch cache pays for hashing every call and is rarely hit by
    # one Case's few calls, each at its own sizes.
    mode.cache_enabled = False
    wrap = mode.fake_tensor_converter.from_meta_and_device
    args = {
        name: wrap(mode, value, _CASE_DEVICE) if isinstance(value, torch.Tensor) else value
        for name, value in case.bind(case.meta_buffers()).items()
    }

    def call():
        with mode:
            return op(**args)

    return _observe("fake", call, args, {}, {})


def program_of(spec: Spec, case: Case) -> tuple[list[str], Callable[..., Any]]:
    """The program as a function of the Case's buffers, in a fixed order."""
    names = sorted(case.buffers)
    op = spec.resolve()

    def program(*tensors: torch.Tensor) -> Any:
        args = case.bind(dict(zip(names, tensors, strict=False)))
        return spec.program(op, **args)

    return names, program


def run_program(spec: Spec, case: Case) -> Observation:
    names, program = program_of(spec, case)
    buffers = case.allocate()
    before = _snapshot(buffers)
    return _observe("program", lambda: program(*(buffers[n] for n in names)), {}, buffers, before)


def run_inductor(
    spec: Spec,
    case: Case,
    batch: BatchSignature | None = None,
    fresh: bool = False,
    backend: str = "inductor",
) -> Observation:
    """The program compiled by Inductor, the Case's sizes passed as inputs.

    Alone, a Case compiles statically: one compile per Signature and sizes.
    In a ``batch``, one compile serves every Case of the batch, symbolic only
    in what varies across it. ``fresh`` compiles a new program for this Case;
    ``backend`` names another Dynamo backend (a stage before Inductor).
    """
    if batch is None:
        signature, sizes = signature_of(case)
        specialized, dynamic = sizes, False
    else:
        signature, sizes = batch.signature, batch.sizes(case)
        specialized, dynamic = (batch.dynamic, batch.static_dims), True
    names = signature.buffer_names
    op = spec.resolve()

    def make() -> Callable[..., Any]:
        def program(*inputs: Any) -> Any:
            args = bind(signature, dict(zip(names, inputs, strict=False)), inputs[len(names) :])
            return spec.program(op, **args)

        return program

    key = (spec.name, spec.op, spec.program, signature, specialized)
    compiled = compiled_programs().get(key, spec.overload, make, dynamic, fresh, backend)
    buffers = case.allocate()
    before = _snapshot(buffers)
    if batch is not None:
        batch.mark_static(buffers)
    evidence = []

    def call() -> Any:
        result, call_evidence = compiled(
            *(buffers[n] for n in names), *sizes, pristine=[before[n] for n in names]
        )
        evidence.append(call_evidence)
        return result

    observation = _observe(backend, call, {}, buffers, before)
    if evidence:
        observation.vacuity = compiled.vacuity(evidence[0])
    return observation
