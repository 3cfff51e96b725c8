"""What the note of a cut-down program says: where cutting down left none of
the op's outputs reaching what the program returns, the bug is in the code
around the op, and the note says so rather than let a reader blame the op."""

from __future__ import annotations

from torch_conformance.oracles.checks.programs import program_finding
from torch_conformance.oracles.core.findings import Finding
from torch_conformance.oracles.core.program import Program, Step
from torch_conformance.oracles.core.verdicts import METADATA
from torch_conformance.oracles.modes.compiled import INDUCTOR

OP = Step("op", (), (), 1)  # value 1: the op's output, on the input x (value 0)
AROUND = "none of the op's outputs reaches what it returns"
STRIDES = [Finding(METADATA, "out[0].stride() differs")]


def _program(*steps: Step, returns: tuple[int, ...]) -> Program:
    return Program(("x",), (OP, *steps), returns)


def test_a_returned_output_or_a_value_made_from_it_reaches_the_return():
    assert _program(returns=(1,)).returns_the_ops_outputs()
    assert _program(Step("flip", (1,), ((0,),), 1), returns=(2,)).returns_the_ops_outputs()


def test_a_write_that_reads_the_output_counts_as_reaching():
    # x.add_(v1) changes x, which the program returns.
    assert _program(Step("add_", (0, 1)), returns=(0,)).returns_the_ops_outputs()


def test_an_output_read_only_by_a_value_left_unreturned_reaches_nothing():
    program = _program(Step("clone", (1,), (), 1), Step("cat", (0, 0), (0,), 1), returns=(3,))
    assert not program.returns_the_ops_outputs()


def test_the_note_says_so_only_where_the_output_reaches_nothing():
    cut = _program(Step("transpose", (0,), (0, 1), 1), Step("cat", (2, 2), (1,), 1), returns=(3,))
    note = program_finding(STRIDES, INDUCTOR, cut)
    assert not note.blocking
    assert note.message.startswith(
        f"distinct bug {METADATA}/inductor/static/cat,op,transpose; the program (3 steps), "
        f"in which {AROUND}: unless the op writes its arguments, the fault is in the code "
        "around the op:\n"
    ), note.message
    assert "torch.cat([v2, v2], 1)" in note.message
    kept = program_finding(STRIDES, INDUCTOR, _program(returns=(1,)))
    assert AROUND not in kept.message and "the program (1 step):" in kept.message
