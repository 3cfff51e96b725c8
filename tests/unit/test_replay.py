"""Replay files are data: JSON of the suite's own value types, read back equal."""

from __future__ import annotations

import json
import math

import pytest
import torch

from torch_conformance.oracles.core.buffers import DEFAULT, Buffer, Case, View
from torch_conformance.oracles.core.program import Program, Step
from torch_conformance.oracles.core.specification import SpecError
from torch_conformance.oracles.runner.replay import Replay


def _replay() -> Replay:
    program = Program(
        ("x",),
        (Step("narrow", (0,), (0, 1, 2), 1), Step("fill_", (1,), (-0.0,)), Step("op")),
        (1,),
        frozenset({0}),
        True,
        frozenset({"unfold"}),
    )
    case = Case(
        {"x": Buffer((4, 3), torch.bfloat16), "i": Buffer((2,), torch.int64, ("randint", 0, 4))},
        {"x": View("x", (("narrow", 0, 1, 2),)), "i": View("i"), "eps": -0.0, "out": DEFAULT},
        seed=7,
        label="a label",
        program=program,
        tangents=("permuted",),
    )
    return Replay("spec", "programs", (case, case), 1, True, "inductor")


def test_a_replay_reads_back_equal(tmp_path):
    replay = _replay()
    back = Replay.load(replay.save(tmp_path / "r.cases"))
    assert back == replay
    assert math.copysign(1, back.cases[0].args["eps"]) == -1  # -0.0 stays -0.0
    assert back.cases[0].args["out"] is DEFAULT


def test_a_replay_names_no_type_but_the_suites_values(tmp_path):
    path = _replay().save(tmp_path / "r.cases")
    data = json.loads(path.read_text())
    data["replay"]["type"] = "Popen"
    path.write_text(json.dumps(data))
    with pytest.raises(SpecError, match="holds no Cases to replay"):
        Replay.load(path)
