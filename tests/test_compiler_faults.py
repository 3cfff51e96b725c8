"""Real compiler faults, and the Inductor verdict reporting them.

Both were found by this suite on torch 2.13.0 (CPU), with an in-place op on
a view of a graph input:

- with dynamic shapes, the write-back to a strided view at a nonzero storage
  offset lands at the wrong offset (a static compile is right); it is listed
  in ``oracles/known_faults.py``, which the tests here keep honest;
- ``x.clone()`` of the mutated view returns a tensor that shares storage with
  the input buffer: writing to the result changes the input.

Each test finds the truth with plain ``torch.compile`` and asserts that the
verdict agrees with it, so it holds on any torch release, fixed or not.
"""

from __future__ import annotations

import torch
from hypothesis import strategies as st

from oracles.case import Buffer, Case, View
from oracles.checks import check_inductor
from oracles.known_faults import DYNAMIC_WRITE_BACK
from oracles.signature import batch_signature
from oracles.spec import Spec


@torch.library.custom_op("conformance_tests::double_", mutates_args=("x",))
def double_(x: torch.Tensor) -> None:
    x.mul_(2)


def _spec(name: str, case: Case, program) -> Spec:
    return Spec(
        name=name,
        op=torch.ops.conformance_tests.double_.default,
        cases=st.just(case),
        reference=None,
        program=program,
    )


def _clone_of_mutated(op, **args):
    op(**args)
    return args["x"].clone()


def _two_narrows(rows: int, columns: int) -> Case:
    return Case(
        buffers={"buffer": Buffer((rows, columns), torch.float32)},
        args={"x": View("buffer", (("narrow", 0, 1, 1), ("narrow", 1, 2, 3)))},
    )


TWO_NARROWS = _two_narrows(3, 5)
# The buffer's row length varies across the batch: the view's storage offset is symbolic.
WIDER = _two_narrows(3, 7)
ONE_ROW = Case(
    buffers={"buffer": Buffer((3, 5), torch.float32)},
    args={"x": View("buffer", (("narrow", 0, 1, 1),))},
)


def _write_back(buffer, a, b, c, d):
    double_(buffer.narrow(0, a, b).narrow(1, c, d))


def _clone_row(buffer):
    x = buffer[1]
    double_(x)
    return x.clone()


def _compiled(program, dynamic: bool):
    torch._dynamo.reset()
    return torch.compile(program, fullgraph=True, dynamic=dynamic)


def _write_back_is_wrong(dynamic: bool) -> bool:
    base = torch.arange(15.0).reshape(3, 5)
    eager, inductor = base.clone(), base.clone()
    _write_back(eager, 1, 1, 2, 3)
    _compiled(_write_back, dynamic)(inductor, 1, 1, 2, 3)
    return not torch.equal(eager, inductor)


def _clone_aliases_input() -> bool:
    buffer = torch.arange(15.0).reshape(3, 5)
    out = _compiled(_clone_row, dynamic=False)(buffer)
    return out.untyped_storage().data_ptr() == buffer.untyped_storage().data_ptr()


def test_dynamic_write_back_verdict_agrees_with_a_direct_comparison():
    spec = _spec("double_on_two_narrows", TWO_NARROWS, lambda op, **args: op(**args))
    findings = check_inductor(spec, TWO_NARROWS, batch_signature([TWO_NARROWS, WIDER]))
    if _write_back_is_wrong(dynamic=True):
        [finding] = findings
        assert finding.message.startswith(
            "[values] buffer 'buffer' after the call: 6 of 15 elements differ bit for bit "
            "between inductor and eager"
        )
    else:
        assert findings == []
    assert not _write_back_is_wrong(dynamic=False)
    assert check_inductor(spec, TWO_NARROWS) == []


def test_the_known_fault_list_says_where_the_write_back_fault_reproduces():
    # Strict both ways: a release that fixes the fault, or one newly
    # affected, fails here until the entry in oracles/known_faults.py is updated.
    assert _write_back_is_wrong(dynamic=True) == DYNAMIC_WRITE_BACK.affects()


def test_the_known_fault_is_reported_without_blocking_only_where_listed():
    spec = _spec("double_on_two_narrows", TWO_NARROWS, lambda op, **args: op(**args))
    batch = batch_signature([TWO_NARROWS, WIDER])
    findings = check_inductor(spec, TWO_NARROWS, batch)
    if not DYNAMIC_WRITE_BACK.affects():
        assert findings == []
        return
    [finding] = findings
    assert not finding.blocking
    assert finding.verdict == "known compiler fault"
    assert "explained by the known Inductor fault 'dynamic-shape write-back'" in finding.message
    assert DYNAMIC_WRITE_BACK.repro in finding.message


def test_a_disagreement_the_static_compile_shares_is_never_explained_away():
    # The same symptom from a program that is wrong whatever the shapes:
    # the static compile disagrees too, so the finding stays blocking.
    def _wrong_whatever_the_shapes(op, **args):
        op(**args)
        return args["x"].clone() if torch.compiler.is_compiling() else args["x"] + 1

    spec = _spec("double_then_diverge", TWO_NARROWS, _wrong_whatever_the_shapes)
    findings = check_inductor(spec, TWO_NARROWS, batch_signature([TWO_NARROWS, WIDER]))
    assert any(f.blocking and f.verdict == "values" for f in findings)


def test_clone_aliasing_verdict_agrees_with_a_direct_comparison():
    spec = _spec("clone_of_doubled_row", ONE_ROW, _clone_of_mutated)
    messages = [f.message for f in check_inductor(spec, ONE_ROW)]
    if _clone_aliases_input():
        assert (
            "out[0] is a fresh tensor in the eager program, but shares storage with "
            "'buffer' in the compiled program"
        ) in messages
        assert (
            "out[0].storage_offset()=5 in the compiled program, but the eager program gives 0"
        ) in messages
    else:
        assert messages == []
