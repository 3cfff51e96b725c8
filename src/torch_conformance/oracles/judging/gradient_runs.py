"""The Case's program run forward and backward, eagerly and compiled: what
the backward checks compare (``oracles.core.gradients`` says how)."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import torch
import torch.utils._pytree as pytree

from torch_conformance.oracles.comparisons.saved import saved_layouts
from torch_conformance.oracles.core.buffers import Case
from torch_conformance.oracles.core.findings import Finding, error_text
from torch_conformance.oracles.core.gradients import Backward, backward, copies, differentiated
from torch_conformance.oracles.core.signature import bind, signature_of
from torch_conformance.oracles.core.specification import Spec
from torch_conformance.oracles.core.verdicts import AUTOGRAD, CRASH
from torch_conformance.oracles.modes.compiled import Compiled
from torch_conformance.oracles.modes.compiled_program import CompiledProgram
from torch_conformance.oracles.modes.programs import around

# What torch says where an op has no autograd formula: a custom op's error,
# and the warning of the fallback that differentiates a kernel's own
# operations (where it has any: a compiled kernel has none, so its
# gradients are silently wrong).
NO_FORMULA = ("no autograd formula was registered", "an autograd kernel was not registered")
# The dispatch keys an op's autograd formula belongs at.
AUTOGRAD_KEYS = ("Autograd", "AutogradCPU", "AutogradCUDA", "CompositeImplicitAutograd")


def eager_backward(
    spec: Spec,
    case: Case,
    given: Callable[[torch.Tensor, torch.Tensor], torch.Tensor] | None = None,
) -> tuple[list[str], Backward, str | None]:
    """The program eagerly, then its gradients: the buffers differentiated,
    the run, and torch's warning that the op has no autograd formula
    (``given``: see ``backward``)."""
    wrt = differentiated(spec.grads, case)
    op, program = spec.resolve(), around(spec, case)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        run = backward(
            lambda inputs: program(op, **case.bind(copies(inputs))),
            case.allocate(),
            wrt,
            case.seed,
            case.tangents,
            given,
        )
    said = [str(w.message) for w in caught if any(n in str(w.message) for n in NO_FORMULA)]
    return wrt, run, said[0] if said else None


def formula_inside_kernel(op: Any, outputs: Any) -> bool:
    """``op``, an op with no kernel at an autograd key, still gave its
    program's ``outputs`` an ``autograd.Function``'s formula: one called
    inside a backend kernel (CPU, CUDA, CompositeExplicitAutograd).
    torch.compile traces the op's fake and never runs that kernel, so the
    compiled program differentiates nothing (what opcheck's
    ``test_autograd_registration`` looks for)."""
    if not isinstance(op, torch._ops.OpOverload) or any(
        torch._C._dispatch_has_kernel_for_dispatch_key(op.name(), key) for key in AUTOGRAD_KEYS
    ):
        return False
    nodes = [o.grad_fn for o in pytree.tree_leaves(outputs) if isinstance(o, torch.Tensor)]
    return any(_behind(node, _a_function) for node in nodes)


def formula_at_a_backend_key(spec: Spec) -> Finding:
    """The Finding for ``formula_inside_kernel``."""
    return Finding(
        AUTOGRAD,
        f"{spec.label} records a gradient eagerly but has no kernel at an autograd key: "
        "its formula runs inside a backend kernel (an autograd.Function, or an op with a "
        "formula of its own, called from a kernel registered for CPU, CUDA or "
        "CompositeExplicitAutograd), which torch.compile never runs (it traces the fake), "
        "so compiled gradients are missing: register the formula with "
        "torch.library.register_autograd; torch.library.opcheck's "
        "test_autograd_registration says the same",
    )


def compiled_backward(
    spec: Spec, case: Case, mode: Compiled
) -> tuple[Backward, str | None, list[Finding]]:
    """The program compiled in ``mode`` (statically), then its gradients
    through the backward that compile made; why the run proves nothing, if
    it does not; and the tensors the forward saved that its backward was
    compiled for in another layout (``saved_layouts``)."""
    wrt = differentiated(spec.grads, case)
    signature, sizes = signature_of(case)
    names = signature.buffer_names
    op, function = spec.resolve(), around(spec, case)

    def make() -> Callable[..., Any]:
        def backward_program(*inputs: Any) -> Any:
            buffers = copies(dict(zip(names, inputs, strict=False)))
            return function(op, **bind(signature, buffers, inputs[len(names) :]))

        return backward_program

    key = (spec.name, spec.op, "backward", function, signature, sizes)
    program = mode.program(key, spec.overload, make)
    assert isinstance(program, CompiledProgram), "the backward checks run no deployment"
    evidence, saved = [], []

    def forward(inputs: dict[str, torch.Tensor]) -> Any:
        result, call = program(*(inputs[n] for n in names), *sizes)
        evidence.append(call)
        saved.extend(saved_by(result))  # before the backward frees them
        return result

    with program.settings():  # the backward compiles as the forward did
        run = backward(forward, case.allocate(), wrt, case.seed, case.tangents)
    vacuity = program.vacuity(evidence[0]) if evidence else None
    if vacuity is None and mode.stage > 0 and run.error is None:
        vacuity = _not_compiled_backward(run, every=case.program is None)
    compiled_for = program.saved_for_backward()
    misread = [] if compiled_for is None else saved_layouts(saved, compiled_for, mode.name)
    return run, vacuity, misread


def saved_by(outputs: Any) -> list[torch.Tensor]:
    """The tensors the compiled function behind ``outputs`` saved for its
    backward (as empty tensors of their layouts: the backward frees them)."""
    for output in pytree.tree_leaves(outputs):
        node = _found_behind(getattr(output, "grad_fn", None), _compiled_function)
        if node is not None:
            saved = (*node.saved_tensors, *getattr(node, "_tensors_no_vc_check", ()))
            return [torch.empty_strided(t.shape, t.stride(), device="meta") for t in saved]
    return []


def _compiled_function(node: Any) -> bool:
    """The node of the function AOTAutograd compiled."""
    return "CompiledFunction" in type(node).__name__


def _not_compiled_backward(run: Backward, every: bool) -> str | None:
    """Why the gradients were not computed by a compiled backward: an output
    whose gradient never passes AOTAutograd's compiled function (a view of a
    compiled output is replayed outside the graph, so its own node is the
    view's, with the compiled function behind it). Unless ``every``, one
    output that passes it is enough: a drawn program may return views of
    its inputs, which AOTAutograd replays outside the graph."""
    if not run.tangents:
        return "no output of the compiled program requires a gradient: nothing to differentiate"
    eager = []
    for i in run.tangents:
        node = run.outputs[i].grad_fn  # type: ignore[index]
        if not _behind(node, _compiled_function):
            eager.append(f"out[{i}]'s gradient comes from {type(node).__name__}")
    if eager and (every or len(eager) == len(run.tangents)):
        return (
            f"{eager[0]}, and never passes a backward AOTAutograd compiled: autograd "
            "differentiated it eagerly"
        )
    return None


def _behind(node: Any, wanted: Callable[[Any], bool], depth: int = 8) -> bool:
    """An autograd node ``wanted`` is ``node`` or within ``depth`` nodes behind it."""
    return _found_behind(node, wanted, depth) is not None


def _found_behind(node: Any, wanted: Callable[[Any], bool], depth: int = 8) -> Any:
    """The first node ``wanted`` that is ``node`` or within ``depth`` nodes behind it."""
    if node is None or depth == 0:
        return None
    if wanted(node):
        return node
    for behind, _ in node.next_functions:
        found = _found_behind(behind, wanted, depth - 1)
        if found is not None:
            return found
    return None


def _a_function(node: Any) -> bool:
    """The node of an ``autograd.Function`` (a formula of its own)."""
    return isinstance(node, torch.autograd.function.BackwardCFunction)


def failed_run(spec: Spec, run: Backward, mode: str) -> list[Finding]:
    """A forward or backward that raised, named: a missing autograd formula
    by what to do about it."""
    assert run.error is not None
    text = error_text(run.error)
    if run.outputs is not None and any(words in text for words in NO_FORMULA):
        return [no_formula(spec, text)]
    where = "forward" if run.outputs is None else "backward"
    return [Finding(CRASH, f"the program's {where} raised in {mode} mode: {text}")]


def no_formula(spec: Spec, why: str) -> Finding:
    """The op has no autograd formula for the arguments its spec differentiates."""
    return Finding(
        AUTOGRAD,
        f"{spec.label} has no autograd formula, so no gradient reaches "
        f"{', '.join(spec.grads)} through it ({why.split('. ')[0]}): register one with "
        "torch.library.register_autograd, for the op itself (not a Python wrapper "
        "of it); torch.library.opcheck's test_autograd_registration says the same",
    )
