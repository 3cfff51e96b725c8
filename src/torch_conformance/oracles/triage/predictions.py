"""Predicted wrong answers: what a known fault makes a compiled program
compute, so that triage can match the fault by its answer.

A prediction rewrites the Case (its arguments, or its drawn program) so that
running it eagerly computes exactly what the fault does: a write-back at
storage offset 0, a -0.0 passed as +0.0, a write through ``unfold``
inverted by ``unfold_backward``, a read of an ``index_copy_`` target laid
out contiguously, a returned view rebuilt from offset 0. The fault is
matched only when the compiled program agrees with that eager run bit for
bit (values, shapes, strides). A fault that makes
the compile fail instead predicts its error: the message it raises, with
the shape and the layout the program's own values give.

A predictor returns its candidates (the fault's answer where it cannot tell
which of several writes took the faulty path), none where the Case gives
its fault nothing to do: the fault cannot explain a disagreement there.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
import re
import traceback
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import torch

from torch_conformance.oracles.core.buffers import Case, View
from torch_conformance.oracles.core.findings import error_chain
from torch_conformance.oracles.core.program import STEPS, Program, Step
from torch_conformance.oracles.core.specification import Spec
from torch_conformance.oracles.modes.eager import EAGER
from torch_conformance.oracles.modes.mode import IN_PROGRAM


@dataclasses.dataclass(frozen=True)
class Prediction:
    """What a fault makes the compiled program do: compute what ``case``
    computes eagerly (``outputs`` False: leave the buffers as it leaves
    them, for a fault of where writes land, whose outputs other faults may
    change too), or fail with an error that ``error`` accepts."""

    case: Case | None = None
    error: Callable[[BaseException], bool] | None = None
    outputs: bool = True


def _rebased(spec: Spec, case: Case) -> list[Prediction]:
    """Dynamic shapes, pytorch/pytorch#198068: an opaque op's write to a view
    of a graph input at a nonzero storage offset lands at offset 0 (Inductor
    passes ``reinterpret_tensor(input, size, stride, 0)`` to the op, which
    reads there too). Which writes take that path depends on how their views
    are made, so each choice of them is a candidate: the op's written
    arguments at a nonzero offset, and each ``scale_`` of a drawn program.
    Only the op's call is rebased: the rest of a drawn program reads and
    writes its arguments where they are."""
    meta = case.bind(case.meta_buffers())
    arguments = [
        name
        for name in spec.declared_writes
        if isinstance(case.args.get(name), View)
        and isinstance(meta.get(name), torch.Tensor)
        and meta[name].storage_offset()
    ]
    program = case.program
    steps = (
        [] if program is None else [i for i, s in enumerate(program.steps) if s.kind == "scale_"]
    )
    targets = [*arguments, *steps][:_MOST_REBASED]
    found = []
    for chosen in itertools.chain.from_iterable(
        itertools.combinations(targets, n) for n in range(1, len(targets) + 1)
    ):
        names = tuple(t for t in chosen if isinstance(t, str))
        if program is None:
            made = dataclasses.replace(case, args=_at_offset_0(case, meta, names))
        else:
            rebased = [_step_rebased(s, i in chosen, names) for i, s in enumerate(program.steps)]
            made = dataclasses.replace(
                case, program=dataclasses.replace(program, steps=tuple(rebased))
            )
        found.append(Prediction(made, outputs=False))
    return found


def _at_offset_0(case: Case, meta: dict[str, Any], names: tuple[str, ...]) -> dict[str, Any]:
    """The Case's arguments with those named rebased to storage offset 0."""
    args = dict(case.args)
    for name in names:
        tensor, view = meta[name], case.args[name]
        at_zero = ("as_strided", tuple(tensor.shape), tuple(tensor.stride()), 0)
        args[name] = View(view.buffer, (*view.ops, at_zero))
    return args


def _step_rebased(step: Step, chosen: bool, names: tuple[str, ...]) -> Step:
    """``step`` as the fault runs it: a chosen ``scale_`` at offset 0; the
    op's call with the arguments ``names`` at offset 0."""
    if step.kind == "scale_" and chosen:
        return dataclasses.replace(step, kind="scale_at_offset_0")
    if step.kind == "op" and names:
        return dataclasses.replace(step, kind="op_at_offset_0", params=(names, *step.params))
    return step


# The writes whose choices the write-back prediction tries, at most (2**n - 1 candidates).
_MOST_REBASED = 4


def _positive_zero(spec: Spec, case: Case) -> list[Prediction]:
    """Dynamic shapes: AOTAutograd passes a float argument of -0.0 as +0.0."""

    def signless(value: Any) -> Any:
        if isinstance(value, (list, tuple)):
            return type(value)(signless(item) for item in value)
        if isinstance(value, float) and value == 0:
            return 0.0
        return value

    args = {name: signless(value) for name, value in case.args.items()}
    if all(_same_bits(args[name], value) for name, value in case.args.items()):
        return []
    return [Prediction(dataclasses.replace(case, args=args))]


def _same_bits(a: Any, b: Any) -> bool:
    if isinstance(a, float) and isinstance(b, float):
        return math.copysign(1, a) == math.copysign(1, b) and a == b
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(map(_same_bits, a, b))
    return a == b


def _chain(program: Program, value: int) -> Iterable[int]:
    """The positions of the view Steps ``value`` is made by, innermost first."""
    producers = program.producers()
    while value in producers:
        position = producers[value]
        step = program.steps[position]
        if STEPS[step.kind].role != "view":
            return
        yield position
        value = step.operands[0]


def _unfold_inverse(spec: Spec, case: Case) -> list[Prediction]:
    """pytorch/pytorch#198102: functionalization writes an update made
    through an ``unfold`` view back with ``unfold_backward``, which zeroes
    what no window covers and sums overlapping windows."""
    program = case.program
    if program is None:
        return []
    made = program
    # From the last Step back, so each insertion leaves earlier positions be.
    for position in reversed(range(len(program.steps))):
        step = program.steps[position]
        if STEPS[step.kind].role != "write":
            continue
        for link in _chain(program, step.operands[0]):
            unfold = program.steps[link]
            if unfold.kind != "unfold":
                continue
            value = _value_made_by(program, link)
            inverse = Step("unfold_inverse", (unfold.operands[0], value), unfold.params)
            made = made.inserted(position + 1, inverse)
    if made == program:
        return []
    return [Prediction(dataclasses.replace(case, program=made))]


def _contiguous_after_index_copy(spec: Spec, case: Case) -> list[Prediction]:
    """pytorch/pytorch#133512: functionalization's ``index_copy`` returns a
    contiguous tensor, and what the program computes from the updated target
    takes that layout (values unchanged): a Step that reads it, or the op
    called on it (an op Inductor compiles lays its result out from it)."""
    program = case.program
    if program is None:
        return []
    made = program
    targets: set[int] = set()
    position = 0
    while position < len(made.steps):
        step = made.steps[position]
        read = [v for v in step.operands if v in targets]
        called = [v for v in targets if v < len(made.inputs)] if step.kind == "op" else []
        fresh = STEPS[step.kind].role == "fresh" and step.kind != "contiguous"
        if (fresh and read) or len(called) == 1:
            target = read[0] if fresh else called[0]
            made = made.inserted(position, Step("contiguous", (target,), (), 1))
            value = _value_made_by(made, position)
            step = made.steps[position + 1]
            if fresh:
                operands = tuple(value if v == target else v for v in step.operands)
                step = dataclasses.replace(step, operands=operands)
            else:  # the op on the contiguous copy in the target's place
                step = Step("op_on", (value,), (made.inputs[target],), step.outputs)
            steps = list(made.steps)
            steps[position + 1] = step
            made = dataclasses.replace(made, steps=tuple(steps))
            targets = {t + 1 if t >= value else t for t in targets}
            position += 2
            continue
        if step.kind == "index_copy_":
            targets.add(step.operands[0])
        position += 1
    if made == program:
        return []
    return [Prediction(dataclasses.replace(case, program=made))]


def _root(program: Program, value: int) -> int:
    """The value ``value`` is a view of, through every view Step."""
    for position in _chain(program, value):
        value = program.steps[position].operands[0]
    return value


def _view_rebuilt(spec: Spec, case: Case) -> list[Prediction]:
    """Dynamic shapes (``upstream/dynamic_view_output.py``): a returned view
    of an argument that the program writes is computed into a fresh
    contiguous tensor, and AOTAutograd rebuilds the view from that tensor's
    strides and offset, so it comes back as the argument's storage from
    offset 0, laid out contiguously. Which returned views take that path
    depends on the writes around them, so each choice of them is a
    candidate."""
    program = case.program
    if program is None or not program.writes:
        return []
    producers = program.producers()
    views = [
        value
        for value in dict.fromkeys(program.returns)
        if value in producers
        and STEPS[program.steps[producers[value]].kind].role == "view"
        and _root(program, value) < len(program.inputs)
    ][:_MOST_REBASED]
    found = []
    for chosen in itertools.chain.from_iterable(
        itertools.combinations(views, n) for n in range(1, len(views) + 1)
    ):
        made = program
        for value in chosen:
            rebuilt = _value_made_by(made, len(made.steps))
            made = made.inserted(len(made.steps), Step("contiguous_at_offset_0", (value,), (), 1))
            made = dataclasses.replace(
                made, returns=tuple(rebuilt if r == value else r for r in made.returns)
            )
        found.append(Prediction(dataclasses.replace(case, program=made)))
    return found


def _op_written(spec: Spec, program: Program) -> set[int]:
    """The program's inputs that the op writes in place."""
    return {program.inputs.index(n) for n in spec.declared_writes if n in program.inputs}


def _written_inputs(spec: Spec, program: Program) -> set[int]:
    """The program's inputs that a Step or the op writes in place."""
    return _op_written(spec, program) | {
        _root(program, step.operands[0])
        for step in program.steps
        if STEPS[step.kind].role == "write"
    }


def _view_replayed_on_a_copy(spec: Spec, case: Case) -> list[Prediction]:
    """AOTInductor (``upstream/aoti_returned_view_copy.py``): a returned view
    of an input the program writes in place (or that input itself) comes
    back made from a fresh copy (laid out densely in its stride order, as
    ``clone`` lays it out) of the final values of the input, of one of the
    views it is made from, or of itself, and the views after that one
    replayed on the copy: it no longer shares the input's storage, and its
    strides and offset are those the copy gives. Which copy Inductor makes
    depends on its layouts, so each is a candidate."""

    def at(program: Program, chain: list[int]) -> list[_Copied]:
        return [(CLONE, k) for k in range(len(chain) + 1)]

    return _replayed(spec, case, at)


def _as_strided_over_a_copy(spec: Spec, case: Case) -> list[Prediction]:
    """AOTInductor (``upstream/aoti_as_strided_over_a_copy.py``): an ``as_strided``
    in the views of a returned view of an input the program writes is made
    over a fresh copy of its own operand (laid out as ``clone`` lays it
    out), with the strides and offset it has in the input's storage, so it
    reads other elements, and may reach past the copy's end."""

    def at(program: Program, chain: list[int]) -> list[_Copied]:
        return [
            (AS_STRIDED, k) for k, p in enumerate(chain) if program.steps[p].kind == "as_strided"
        ]

    return _replayed(spec, case, at)


# Where a value's views are made again from a copy: the copy of the value
# after the first k views of its chain (CLONE, k), or the ``as_strided`` at
# index k of its chain made over a copy of its operand (AS_STRIDED, k).
CLONE, AS_STRIDED = "clone", "as_strided"
_Copied = tuple[str, int]
# The candidates a copy prediction tries, at most.
_MOST_COPIES = 64


def _replayed(
    spec: Spec, case: Case, at: Callable[[Program, list[int]], list[_Copied]]
) -> list[Prediction]:
    """Each choice of the returned views of a written input, each made again
    from a copy at one of the points ``at`` gives in its chain of views
    (outermost first): which views take a fault's path depends on the writes
    around them, so each choice is a candidate."""
    program = case.program
    if program is None:
        return []
    written = _written_inputs(spec, program)
    ways = {}
    for value in dict.fromkeys(program.returns):
        chain = list(_chain(program, value))[::-1]
        if _root(program, value) in written and (points := at(program, chain)):
            ways[value] = [(_root(program, value), chain, point) for point in points]
    values = list(ways)[:_MOST_REBASED]
    choices = itertools.chain.from_iterable(
        itertools.product(*(ways[v] for v in chosen))
        for chosen in itertools.chain.from_iterable(
            itertools.combinations(values, n) for n in range(1, len(values) + 1)
        )
    )
    found = []
    for picked in itertools.islice(choices, _MOST_COPIES):
        made = program
        for root, chain, point in picked:
            value = _value_made_by(program, chain[-1]) if chain else root
            made, again = _made_again(made, program, root, chain, point)
            made = dataclasses.replace(
                made, returns=tuple(again if r == value else r for r in made.returns)
            )
        found.append(Prediction(dataclasses.replace(case, program=made)))
    return found


def _value_made_by(program: Program, position: int) -> int:
    """The value the Step at ``position`` makes (its first; past the last
    Step, the number the next value would take)."""
    return len(program.inputs) + sum(s.outputs for s in program.steps[:position])


def _made_again(
    made: Program, program: Program, root: int, chain: list[int], point: _Copied
) -> tuple[Program, int]:
    """``made`` with Steps appended that make a value of ``program`` (by the
    views at ``chain`` from ``root``, outermost first) again from a copy at
    ``point``, the views after it replayed on the copy; and the value made."""
    how, k = point
    if how == CLONE:
        source = root if k == 0 else _value_made_by(program, chain[k - 1])
        copy = Step("clone", (source,), (), 1)
        rest = chain[k:]
    else:
        strided = program.steps[chain[k]]
        copy = Step("as_strided_over_a_copy", strided.operands, strided.params, 1)
        rest = chain[k + 1 :]
    made = made.inserted(len(made.steps), copy)
    for position in rest:
        last = _value_made_by(made, len(made.steps)) - 1
        made = made.inserted(
            len(made.steps), dataclasses.replace(program.steps[position], operands=(last,))
        )
    return made, _value_made_by(made, len(made.steps)) - 1


def _copy_aliased(spec: Spec, case: Case) -> list[Prediction]:
    """The mechanism of pytorch/pytorch#198131: a ``copy_`` from a view of
    what the op then writes is replaced by that view itself, so the op reads
    the view where it reads the destination, and the destination ends with
    the view's values after the op. Torch 2.15 takes the view's values
    before the op for the op to read (a snapshot), and still copies its
    values after the op into the destination: both are candidates."""
    program = case.program
    if program is None:
        return []
    op = next((i for i, s in enumerate(program.steps) if s.kind == "op"), None)
    if op is None:
        return []
    written = _op_written(spec, program)
    aliased = [
        i
        for i, step in enumerate(program.steps[:op])
        if step.kind == "copy_" and _root(program, step.operands[1]) in written
    ]
    if not aliased:
        return []
    call = program.steps[op]
    steps = list(program.steps)
    for i in aliased:
        destination, source = steps[i].operands
        if destination < len(program.inputs):  # an argument of the op: it reads the source
            name = program.inputs[destination]
            call = Step("op_on", (source,), (name, *call.params), call.outputs)
    steps[op] = call
    late = [steps[i] for i in aliased]
    kept = [s for i, s in enumerate(steps) if i not in aliased]
    at = kept.index(call) + 1
    made = dataclasses.replace(program, steps=tuple(kept[:at] + late + kept[at:]))
    if call.kind != "op_on":
        return [Prediction(dataclasses.replace(case, program=made))]
    snapshot = made.inserted(at - 1, Step("clone", call.operands, (), 1))
    steps = list(snapshot.steps)
    steps[at] = dataclasses.replace(steps[at], operands=(_value_made_by(snapshot, at - 1),))
    snapshot = dataclasses.replace(snapshot, steps=tuple(steps))
    return [Prediction(dataclasses.replace(case, program=p)) for p in (made, snapshot)]


_VIEW_ERROR = re.compile(
    r"Cannot view a tensor with shape torch\.Size\(\[(?P<shape>[\d, ]*)\]\) "
    r"and strides \((?P<strides>[\d, ]*)\)"
)


def _numbers(text: str) -> tuple[int, ...]:
    return tuple(int(n) for n in text.replace(",", " ").split())


def _view_of_a_strided_cat(spec: Spec, case: Case) -> list[Prediction]:
    """Inductor lays a ``cat`` out in its inputs' stride order, so a ``view``
    of it that eager's contiguous ``cat`` allows fails: the error names the
    cat's own shape, with strides that are not contiguous."""
    program = case.program
    if program is None:
        return []
    producers = program.producers()
    shapes = set()
    for step in program.steps:
        source = producers.get(step.operands[0]) if step.kind == "view" else None
        if source is None or program.steps[source].kind != "cat":
            continue
        cat = _value_made_by(program, source)
        shapes.add(_eager_shape(spec, case, program, source, cat))

    def strided_shape(found: re.Match[str]) -> tuple[int, ...] | None:
        shape, strides = _numbers(found["shape"]), _numbers(found["strides"])
        return shape if strides != torch.empty(shape, device="meta").stride() else None

    return _naming(_VIEW_ERROR, shapes, strided_shape)


def _repeated_cat_decomposed(spec: Spec, case: Case) -> list[Prediction]:
    """``upstream/cat_repeated_input.py``: Inductor decomposes a ``cat`` whose
    inputs are all one tensor into an ``expand`` of it and a ``clone``, laid
    out contiguously where eager's ``cat`` keeps the tensor's memory format.
    Every such ``cat`` of the program takes that path."""
    program = case.program
    if program is None:
        return []
    steps = tuple(
        Step("repeated_cat", step.operands[:1], step.params, step.outputs)
        if step.kind == "cat" and step.operands[0] == step.operands[1]
        else step
        for step in program.steps
    )
    if steps == program.steps:
        return []
    return [
        Prediction(dataclasses.replace(case, program=dataclasses.replace(program, steps=steps)))
    ]


def _naming(
    pattern: re.Pattern[str], expected: set[Any], read: Callable[[re.Match[str]], Any]
) -> list[Prediction]:
    """The prediction of an error whose message ``pattern`` finds, naming
    (as ``read`` reads the match) one of ``expected``; none where nothing
    is expected."""
    if not expected:
        return []

    def error(raised: BaseException) -> bool:
        found = pattern.search(str(raised))
        return found is not None and read(found) in expected

    return [Prediction(error=error)]


def _eager_value(
    spec: Spec, case: Case, program: Program, position: int, value: int
) -> torch.Tensor:
    """``value`` when the program runs eagerly up to ``position``."""
    head = dataclasses.replace(program, steps=program.steps[: position + 1], returns=(value,))
    observed = EAGER.run(spec, dataclasses.replace(case, program=head), IN_PROGRAM)
    assert observed.outputs, "the eager program ran: so does its head"
    return observed.outputs[0]


def _eager_shape(
    spec: Spec, case: Case, program: Program, position: int, value: int
) -> tuple[int, ...]:
    """The shape of ``value`` when the program runs eagerly up to ``position``."""
    return tuple(_eager_value(spec, case, program, position, value).shape)


_REFUSED_AS_STRIDED = re.compile(
    r"as_strided\(\[(?P<size>[\d, ]*)\], \[(?P<stride>[\d, ]*)\], (?P<offset>\d+)\) "
    r"requires \d+ elements but buf\d+ holds only (?P<holds>\d+)"
)


def _as_strided_refused(spec: Spec, case: Case) -> list[Prediction]:
    """AOTInductor (``upstream/aoti_as_strided_refused.py``): an ``as_strided``
    of a view of an input the program writes, reaching past the view's own
    elements, fails to compile: Inductor realizes the view as a buffer of
    its own and refuses the ``as_strided`` over it, naming its size, strides
    and offset and the view's element count."""
    program = case.program
    if program is None:
        return []
    written = _written_inputs(spec, program)
    refused = set()
    for position, step in enumerate(program.steps):
        if step.kind != "as_strided" or _root(program, step.operands[0]) not in written:
            continue
        size, stride, offset = step.params
        shape = _eager_shape(spec, case, program, position, step.operands[0])
        refused.add((tuple(size), tuple(stride), offset, int(torch.Size(shape).numel())))

    def named(found: re.Match[str]) -> tuple[Any, ...]:
        strided = (_numbers(found["size"]), _numbers(found["stride"]), int(found["offset"]))
        return (*strided, int(found["holds"]))

    return _naming(_REFUSED_AS_STRIDED, refused, named)


def _decomposition_assertion(spec: Spec, case: Case) -> list[Prediction]:
    """Inductor's decomposition of an opaque mutating custom op
    (``auto_functionalized``) traces its replacement twice and asserts both
    traces have as many nodes, which a view with a size-1 dimension under
    dynamic shapes breaks: the compile fails with an assertion raised in
    ``replace_by_example``, called from ``decompose_auto_functionalized``."""
    program = case.program
    mutating = bool(spec.declared_writes) or (program is not None and "scale_" in program.kinds())
    size_one = any(1 in buffer.shape for buffer in case.buffers.values())
    if not (mutating and size_one):
        return []

    def error(raised: BaseException) -> bool:
        inner = error_chain(raised)[-1]
        if not isinstance(inner, AssertionError):
            return False
        frames = traceback.extract_tb(inner.__traceback__)
        return (
            bool(frames)
            and frames[-1].name == "replace_by_example"
            and frames[-1].filename.endswith("pattern_matcher.py")
            and any(frame.name == "decompose_auto_functionalized" for frame in frames)
        )

    return [Prediction(error=error)]


def _float8_written(spec: Spec, case: Case, program: Program, through_unfold: bool) -> set[str]:
    """The float8 types (as c10 names them) of the values the program writes
    in place (through an ``unfold`` view only, if ``through_unfold``)."""
    types = set()
    for position, step in enumerate(program.steps):
        if STEPS[step.kind].role != "write":
            continue
        chain = _chain(program, step.operands[0])
        if through_unfold and not any(program.steps[k].kind == "unfold" for k in chain):
            continue
        dtype = _eager_value(spec, case, program, position, step.operands[0]).dtype
        if dtype.is_floating_point and dtype.itemsize == 1:
            types.add(f"Float8_{str(dtype).removeprefix('torch.float8_')}")
    return types


def _raised(pattern: re.Pattern[str], site: tuple[str, str], types: set[str]) -> list[Prediction]:
    """The prediction of an error whose message ``pattern`` finds, naming one
    of the float8 ``types``, raised at ``site`` (a function and the name of
    its file): the innermost error of the chain that says it."""
    if not types:
        return []

    def error(raised: BaseException) -> bool:
        for cause in reversed(error_chain(raised)):
            found = pattern.search(str(cause))
            if found is None:
                continue
            frames = traceback.extract_tb(cause.__traceback__)
            at = (frames[-1].name, Path(frames[-1].filename).name) if frames else None
            return at == site and found["type"] in types
        return False

    return [Prediction(error=error)]


# g++'s complaint where cpp_prefix.h has no fetch_value for a float8 type,
# naming the type, and the atomic_add that needed it; raised where Inductor
# runs g++.
_FLOAT8_FETCH = re.compile(
    r"fetch_value\(volatile T\*\) \[with T = c10::(?P<type>Float8_\w+)\b.*?\n"
    r".*required from [^\n]*\batomic_add\b"
)
_COMPILE_RAISED = ("_run_compile_cmd", "cpp_builder.py")


def _float8_atomic_add(spec: Spec, case: Case) -> list[Prediction]:
    """Inductor's CPU backend with more than one thread
    (``upstream/float8_atomic_add.py``): a write through an ``unfold`` view
    is written back by a scatter-add, emitted as ``atomic_add``, which g++
    cannot compile for a float8 type. The compile fails where Inductor runs
    g++, naming ``fetch_value`` for the written value's float8 type."""
    program = case.program
    if program is None or torch.get_num_threads() < 2:
        return []
    written = _float8_written(spec, case, program, through_unfold=True)
    return _raised(_FLOAT8_FETCH, _COMPILE_RAISED, written)


# The dtype propagation of Inductor's code generation, promoting a where's
# Bool mask with the float8 values it selects between.
_FLOAT8_PROMOTION = re.compile(
    r"Promotion for Float8 Types is not supported, attempted to promote Bool and "
    r"(?P<type>Float8_\w+)"
)
_PROMOTION_RAISED = ("deduce_node_dtype_by_inputs", "common.py")


def _float8_masked_write(spec: Spec, case: Case) -> list[Prediction]:
    """Inductor's CPU backend (``upstream/float8_masked_write.py``): a write
    into part of a float8 value becomes a ``select_scatter`` or
    ``slice_scatter``, lowered to a ``where`` between a Bool mask and the
    float8 values, whose dtype propagation cannot promote Bool with a float8
    type. The compile fails there, naming the written value's float8 type."""
    program = case.program
    if program is None:
        return []
    written = _float8_written(spec, case, program, through_unfold=False)
    return _raised(_FLOAT8_PROMOTION, _PROMOTION_RAISED, written)


# The Steps that write in place through an opaque custom op (Inductor
# reinplaces its functionalized call).
OPAQUE_WRITES = ("scale_",)


def _made_at(program: Program, value: int) -> int:
    """The position of the Step that makes ``value`` (-1: an input)."""
    return next(
        (
            k
            for k, step in enumerate(program.steps)
            if _value_made_by(program, k) <= value < _value_made_by(program, k) + step.outputs
        ),
        -1,
    )


def _write_moved_earlier(spec: Spec, case: Case) -> list[Prediction]:
    """The clone-read fault (``upstream/clone_read_after_mutation.py``): an
    opaque op's in-place write, reinplaced by Inductor, lands before Steps
    that read what it writes, which eager runs first. Each earlier position
    the write can take (after the value it writes is made) is a candidate."""
    program = case.program
    if program is None:
        return []
    found = []
    for j, step in enumerate(program.steps):
        if step.kind not in OPAQUE_WRITES:
            continue
        for i in range(_made_at(program, step.operands[0]) + 1, j):
            steps = list(program.steps)
            steps.insert(i, steps.pop(j))
            moved = dataclasses.replace(program, steps=tuple(steps))
            found.append(Prediction(dataclasses.replace(case, program=moved)))
    return found


PREDICTORS: dict[str, Callable[[Spec, Case], list[Prediction]]] = {
    "write-back at offset 0": _rebased,
    "-0.0 as +0.0": _positive_zero,
    "write through unfold inverted by unfold_backward": _unfold_inverse,
    "index_copy_ target read contiguously": _contiguous_after_index_copy,
    "copy_ replaced by its source": _copy_aliased,
    "returned view rebuilt contiguously at offset 0": _view_rebuilt,
    "view of a cat laid out in its inputs' stride order": _view_of_a_strided_cat,
    "cat of a repeated input laid out as its decomposition lays it out": _repeated_cat_decomposed,
    "assertion decomposing auto_functionalized": _decomposition_assertion,
    "returned view of a written input made again from a copy": _view_replayed_on_a_copy,
    "as_strided of a written input's view made over a copy of its operand": _as_strided_over_a_copy,
    "as_strided past a written input's view refused": _as_strided_refused,
    "an opaque op's in-place write moved before its readers": _write_moved_earlier,
    "a float8 scatter-add g++ cannot compile": _float8_atomic_add,
    "a Bool mask promoted with float8 values": _float8_masked_write,
}
