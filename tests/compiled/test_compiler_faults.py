"""Real compiler faults, and the Inductor verdict reporting them.

All were found by this suite on torch 2.13.0 (CPU):

- with dynamic shapes, the write-back of an in-place op to a strided view at
  a nonzero storage offset lands at the wrong offset (a static compile is
  right); it is listed in ``upstream/known_faults.json``, which the gate keeps
  honest on every release (``torch_conformance/test_known_faults.py``, running the
  standalone scripts in ``upstream/``);
- ``x.clone()`` of the mutated view (or a ``cat`` of it alone) returns a
  tensor that shares storage with the input buffer: writing to the result
  changes the input (listed too);
- AOTAutograd's cache serves a graph specialized to a size of 1 to a
  recompile at another size (found by the nightly profile);
- with dynamic shapes, a float argument of -0.0 reaches a custom op as +0.0
  (found by a user-style spec).

Each test finds the truth without the suite's verdict (plain
``torch.compile``, or the same compile with the cache off) and asserts that
the verdict agrees with it, so it holds on any torch release, fixed or not.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path

import pytest
import torch
from hypothesis import strategies as st

from torch_conformance.families.rope import specs as rope
from torch_conformance.oracles.checks import CHECKS
from torch_conformance.oracles.checks.compiled import check_compiled
from torch_conformance.oracles.core.buffers import Buffer, Case, View
from torch_conformance.oracles.core.findings import ConformanceFailure, Finding
from torch_conformance.oracles.core.locations import PACKAGE
from torch_conformance.oracles.core.signature import batch_signature
from torch_conformance.oracles.core.specification import Spec
from torch_conformance.oracles.judging.differential import compare_compiled
from torch_conformance.oracles.modes.cache import compiled_programs, use_cache_root
from torch_conformance.oracles.modes.compiled import COMPILED, INDUCTOR, Compiled
from torch_conformance.oracles.triage.engine import Situation, one_batch, triage
from torch_conformance.oracles.triage.faults import FAULTS, KNOWN_FAULTS
from torch_conformance.oracles.triage.stage import stage_at_fault
from torch_conformance.oracles.triage.switches import Switch
from torch_conformance.suites.test_known_faults import disagreement
from torch_conformance.upstream import (
    dynamic_write_back,
    mutated_input_alias,
    negative_zero_constant,
)

DYNAMIC_WRITE_BACK = FAULTS["dynamic_write_back"]
MUTATED_INPUT_ALIAS = FAULTS["mutated_input_alias"]
NEGATIVE_ZERO_CONSTANT = FAULTS["negative_zero_constant"]
AUTOGRAD_CACHE_SPECIALIZATION = FAULTS["autograd_cache_specialization"]

CHECKOUT = Path(__file__).resolve().parents[2]


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


def test_dynamic_write_back_verdict_agrees_with_a_direct_comparison():
    spec = _spec("double_on_two_narrows", TWO_NARROWS, lambda op, **args: op(**args))
    findings = check_compiled(spec, TWO_NARROWS, batch_signature([TWO_NARROWS, WIDER]))
    if dynamic_write_back.reproduces():
        [finding] = findings
        assert finding.message.startswith(
            "[values] buffer 'buffer' after the call: 6 of 15 elements differ bit for bit "
            "between inductor and eager"
        )
    else:
        assert findings == []
    assert not dynamic_write_back.reproduces(dynamic=False)
    assert check_compiled(spec, TWO_NARROWS) == []


def test_the_known_fault_is_reported_without_blocking_only_where_listed():
    spec = _spec("double_on_two_narrows", TWO_NARROWS, lambda op, **args: op(**args))
    batch = batch_signature([TWO_NARROWS, WIDER])
    findings = check_compiled(spec, TWO_NARROWS, batch)
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
    findings = check_compiled(spec, TWO_NARROWS, batch_signature([TWO_NARROWS, WIDER]))
    assert any(f.blocking and f.verdict == "values" for f in findings)


def _cat_of_mutated(op, **args):
    op(**args)
    return torch.cat([args["x"].reshape(-1)])


def test_clone_aliasing_verdict_agrees_with_a_direct_comparison():
    spec = _spec("clone_of_doubled_row", ONE_ROW, _clone_of_mutated)
    findings = check_compiled(spec, ONE_ROW)
    if not mutated_input_alias.aliases(mutated_input_alias.clone_row):
        assert findings == []
        return
    messages = "\n".join(str(f) for f in findings)
    assert (
        "[aliasing] out[0] is a fresh tensor in eager, but shares storage with 'buffer' in inductor"
    ) in messages
    assert ("[metadata] out[0].storage_offset()=5 in inductor, but eager gives 0") in messages
    # Listed: reported without blocking, since aot_eager (every stage before
    # Inductor) returns a fresh tensor.
    assert not any(f.blocking for f in findings)
    assert all("known Inductor fault 'mutated-input alias'" in f.message for f in findings)


def test_a_cat_of_one_mutated_input_aliasing_it_is_reported():
    # Found by the rope gate: the in-place rope op without a key, then a cat
    # of the rotated query alone, returns a view of the query buffer.
    spec = _spec("cat_of_doubled_row", ONE_ROW, _cat_of_mutated)
    findings = check_compiled(spec, ONE_ROW)
    if not mutated_input_alias.aliases(mutated_input_alias.cat_row):
        assert findings == []
        return
    assert "out[0] is a fresh tensor in eager, but shares storage" in str(findings)
    assert not any(f.blocking for f in findings)


def test_an_alias_the_stages_before_inductor_share_is_never_explained_away():
    def returns_the_input(op, **args):
        op(**args)
        return args["x"] if torch.compiler.is_compiling() else args["x"].clone()

    spec = _spec("doubled_row_returned", ONE_ROW, returns_the_input)
    findings = check_compiled(spec, ONE_ROW)
    assert any(f.blocking and f.verdict == "aliasing" for f in findings)


def _rope_torch_case(tokens: int, rows: int) -> Case:
    """The pure-PyTorch rope on a 2-D query, a narrowed key and a permuted cache."""
    return Case(
        buffers={
            "query": Buffer((tokens, 80), torch.float16),
            "key": Buffer((tokens + 2, 80), torch.float16),
            "positions": Buffer((tokens + 3,), torch.int64, ("randint", 0, rows)),
            "cos_sin_cache": Buffer((80, rows + 2), torch.float16),
        },
        args={
            "positions": View("positions", (("narrow", 0, 2, tokens),)),
            "query": View("query"),
            "key": View("key", (("narrow", 0, 2, tokens),)),
            "head_size": 80,
            "cos_sin_cache": View("cos_sin_cache", (("narrow", 1, 2, rows), ("permute", (1, 0)))),
            "is_neox": False,
        },
        seed=1,
    )


# One token and one cache row compile a graph specialized to both; one token
# and 23 rows then compile again, and AOTAutograd's cache serves the first.
SPECIALIZED_THEN_GENERAL = [_rope_torch_case(2, 2), _rope_torch_case(1, 1), _rope_torch_case(1, 23)]


def _run_batch(folder, autograd_cache: bool) -> list[list]:
    [spec] = [s for s in rope.SPECS if s.name == "rotary_embedding_torch"]
    previous = compiled_programs().cache_root
    use_cache_root(folder)  # fresh compiled programs and a fresh disk cache
    mode = COMPILED["inductor_autograd_cache"] if autograd_cache else INDUCTOR
    try:
        batch = batch_signature(SPECIALIZED_THEN_GENERAL)
        return [check_compiled(spec, case, batch, mode) for case in SPECIALIZED_THEN_GENERAL]
    finally:
        use_cache_root(previous)


def test_a_cached_graph_specialized_to_other_sizes_is_reported(tmp_path):
    # Found by the nightly profile on torch 2.13: the third Case runs a graph
    # compiled for one cache row and fails Inductor's bounds check. With
    # AOTAutograd's cache off the same batch compiles and agrees with eager,
    # so the harness is not at fault. Strict both ways, like the known-fault
    # list: reported without blocking exactly where the list says.
    assert _run_batch(tmp_path / "without", autograd_cache=False) == [[], [], []]
    found = _run_batch(tmp_path / "with", autograd_cache=True)
    if not AUTOGRAD_CACHE_SPECIALIZATION.affects():
        assert found == [[], [], []]
        return
    assert found[:2] == [[], []]
    [finding] = found[2]
    assert not finding.blocking
    assert (
        "[compiled] the program compiled by inductor_autograd_cache failed where eager ran"
        in finding.message
    )
    assert "index out of bounds: 0 <= tmp9 < 1L" in finding.message
    assert "known Inductor fault 'autograd-cache specialization'" in finding.message


# The standalone script's op: x with its first element set to value.
FIRST_SET = torch.ops.upstream_repro.first_set.default


def test_a_negative_zero_constant_loses_its_sign_in_aot_autograd_not_dynamo():
    # Found by a user-style spec's -0.0 fill in a batch.
    assert not negative_zero_constant.reproduces(backend="eager")


def _first_set_case(rows: int, value: float) -> Case:
    return Case({"x": Buffer((rows,), torch.float32)}, {"x": View("x"), "value": value})


def test_a_lost_negative_zero_is_reported_without_blocking_only_where_listed():
    spec = Spec("first_set", FIRST_SET, st.nothing(), None)
    cases = [_first_set_case(3, -0.0), _first_set_case(5, -0.0)]
    findings = check_compiled(spec, cases[0], batch_signature(cases))
    if not NEGATIVE_ZERO_CONSTANT.affects():
        assert findings == []
        return
    # The output and its two reads (read_outputs) each carry the lost sign.
    assert findings and not any(f.blocking for f in findings)
    finding = findings[0]
    assert "differ bit for bit between inductor and eager (first at [0]: 0.0 vs -0.0)" in str(
        finding
    )
    assert "known Inductor fault 'dynamic -0.0 constant'" in finding.message
    # +0.0 is not the fault's: the same program wrong whatever the sign blocks.
    wrong = Spec(
        "first_set_plus_one",
        spec.op,
        st.nothing(),
        None,
        program=lambda op, **args: op(**args) + 1 if torch.compiler.is_compiling() else op(**args),
    )
    assert any(f.blocking for f in check_compiled(wrong, cases[0], batch_signature(cases)))


def test_two_faults_in_one_program_are_explained_together():
    # A cat of the mutated view (the alias fault) of a view at an offset,
    # compiled with dynamic shapes (the write-back fault): each explains
    # its own verdicts; neither alone explains them all.
    spec = _spec("cat_of_doubled_narrows", TWO_NARROWS, _cat_of_mutated)
    findings = check_compiled(spec, TWO_NARROWS, batch_signature([TWO_NARROWS, WIDER]))
    if not (DYNAMIC_WRITE_BACK.affects() and MUTATED_INPUT_ALIAS.affects()):
        return
    assert findings and not any(f.blocking for f in findings)
    messages = "\n".join(f.message for f in findings)
    assert "[values] buffer 'buffer' after the call" in messages
    assert "known Inductor fault 'dynamic-shape write-back'" in messages
    assert "known Inductor fault 'mutated-input alias'" in messages


@dataclasses.dataclass(frozen=True)
class _Scripted:
    """Evidence whose runs a test scripts: what each witness, switch and
    prediction shows."""

    spec: Spec
    witnessed: Callable[[str], list[Finding]]
    thrown: Callable[[Switch], list[Finding]]
    forecast: Callable[[Case, bool], list[Finding]] = lambda other, outputs: []
    mode: Compiled = INDUCTOR

    def witness(self, name: str) -> list[Finding]:
        return self.witnessed(name)

    def switched(self, switch: Switch) -> list[Finding]:
        return self.thrown(switch)

    def predicted(self, other: Case, outputs: bool) -> list[Finding]:
        return self.forecast(other, outputs)


def _evidence(spec: Spec, witness, switched) -> _Scripted:
    return _Scripted(spec, witness, switched)


def test_a_witness_that_compared_nothing_is_no_evidence():
    spec = _spec("clone_of_doubled_row", ONE_ROW, _clone_of_mutated)
    found = [Finding("aliasing", "out[0] shares storage with 'buffer'")]
    situation = Situation(ONE_ROW, batched=False, writes=True)
    no_verdict = [Finding("harness", "no verdict")]

    def culprits_only(switch: Switch) -> list[Finding]:
        return [] if switch.name in MUTATED_INPUT_ALIAS.culprits else found

    unsupported = _evidence(spec, lambda name: no_verdict, culprits_only)
    assert triage(found, situation, unsupported, KNOWN_FAULTS) == found
    if MUTATED_INPUT_ALIAS.affects():
        supported = _evidence(spec, lambda name: [], culprits_only)
        [demoted] = triage(found, situation, supported, KNOWN_FAULTS)
        assert not demoted.blocking
        assert "evidence: with Inductor's removal of no-op ops off the program agrees" in (
            demoted.message
        )


def test_another_stage_agreeing_is_no_evidence_alone():
    # aot_eager agrees, and so does every switch: no culprit is singled out.
    spec = _spec("clone_of_doubled_row", ONE_ROW, _clone_of_mutated)
    found = [Finding("aliasing", "out[0] shares storage with 'buffer'")]
    situation = Situation(ONE_ROW, batched=False, writes=True)
    every_switch = _evidence(spec, lambda name: [], lambda switch: [])
    assert triage(found, situation, every_switch, KNOWN_FAULTS) == found
    no_switch = _evidence(spec, lambda name: [], lambda switch: found)
    assert triage(found, situation, no_switch, KNOWN_FAULTS) == found


def test_the_other_switches_are_thrown_together_first():
    # The culprit's "no other switch" half: one compile with every other
    # switch of its kind thrown. Where the program still disagrees, none of
    # them is needed; where it agrees, each is thrown alone as the rule says.
    if not MUTATED_INPUT_ALIAS.affects():
        return
    spec = _spec("clone_of_doubled_row", ONE_ROW, _clone_of_mutated)
    found = [Finding("aliasing", "out[0] shares storage with 'buffer'")]
    situation = Situation(ONE_ROW, batched=False, writes=True)
    culprits = set(MUTATED_INPUT_ALIAS.culprits)

    def judged(agreeing: Callable[[Switch], bool]) -> tuple[list[Finding], list[str]]:
        thrown: list[str] = []

        def switched(switch: Switch) -> list[Finding]:
            thrown.append(switch.name)
            return [] if switch.name in culprits or agreeing(switch) else found

        evidence = _evidence(spec, lambda name: [], switched)
        return triage(found, situation, evidence, KNOWN_FAULTS), thrown

    [demoted], thrown = judged(lambda switch: False)
    assert not demoted.blocking
    [together] = [name for name in thrown if name not in culprits]
    others = together.split("+")
    assert len(others) > 1 and "fusion" in others and not culprits & set(others)
    # Together they undo it, and fusion alone does too: no culprit is singled out.
    kept, thrown = judged(lambda switch: "fusion" in switch.name)
    assert kept == found and "fusion" in thrown
    # Together they undo it, but none alone: the rule's own answer, demoted.
    [demoted], thrown = judged(lambda switch: "+" in switch.name)
    assert not demoted.blocking and set(others) <= set(thrown)


def test_a_fault_is_judged_on_what_no_other_fault_explains():
    # The write-back leaves wrong values whatever the alias fault's switch
    # does; tried first, the alias fault does not fit on them, and is tried
    # again once the write-back explains them. Its values alone (with no
    # aliasing of its own) it never explains.
    if not (DYNAMIC_WRITE_BACK.affects() and MUTATED_INPUT_ALIAS.affects()):
        return
    spec = _spec("cat_of_doubled_narrows", TWO_NARROWS, _cat_of_mutated)
    aliasing = Finding("aliasing", "out[0] shares storage with 'buffer'")
    values = Finding("values", "buffer 'buffer' after the call: 6 of 15 elements differ")
    situation = Situation(TWO_NARROWS, batched=True, writes=True)
    # No switch undoes the write-back; the alias fault's culprit undoes the alias.
    culprits = set(MUTATED_INPUT_ALIAS.culprits)
    evidence = _Scripted(
        spec,
        lambda name: [],
        lambda switch: [values] if switch.name in culprits else [aliasing, values],
        lambda other, outputs: [],  # the write-back's predicted answer, matched
    )
    faults = [MUTATED_INPUT_ALIAS, DYNAMIC_WRITE_BACK]  # the alias fault first
    with one_batch():
        demoted = triage([aliasing, values], situation, evidence, faults)
    assert [f.fault for f in demoted] == [MUTATED_INPUT_ALIAS.name, DYNAMIC_WRITE_BACK.name]
    no_write_back = _Scripted(
        spec, lambda name: [], lambda switch: [], lambda other, outputs: [values]
    )
    assert triage([values], situation, no_write_back, faults) == [values]


def test_in_a_batch_the_static_witness_runs_once_for_all_its_cases():
    # It compiles a Case alone: one run stands for the batch's program,
    # while each Case still needs its own predicted answer.
    if not DYNAMIC_WRITE_BACK.affects():
        return
    spec = _spec("double_on_two_narrows", TWO_NARROWS, lambda op, **args: op(**args))
    found = [Finding("values", "buffer 'buffer' after the call: 6 of 15 elements differ")]
    asked: list[str] = []

    def judged(answer: list[Finding], cases: list[Case]) -> list[list[Finding]]:
        def witness(name: str) -> list[Finding]:
            asked.append(name)
            return answer

        evidence = _Scripted(spec, witness, lambda s: found)
        return [
            triage(found, Situation(case, batched=True, writes=True), evidence, KNOWN_FAULTS)
            for case in cases
        ]

    with one_batch():
        explained = judged([], [TWO_NARROWS, WIDER, TWO_NARROWS])
    assert asked == ["static"]
    assert all(not f.blocking for findings in explained for f in findings)
    asked.clear()
    with one_batch():
        unexplained = judged(found, [TWO_NARROWS, WIDER])
    assert asked == ["static"] and unexplained == [found, found]
    asked.clear()
    judged([], [TWO_NARROWS, WIDER])  # outside a batch, each Case asks
    assert asked == ["static", "static"]


def _stage(spec: Spec, case: Case, batch=None) -> Finding:
    return stage_at_fault(spec, INDUCTOR, lambda stage: compare_compiled(spec, case, stage, batch))


def test_the_stage_at_fault_is_named():
    # Inductor's faults come out as Inductor's; the -0.0 fault as AOTAutograd's;
    # a program that reads is_compiling() differs from Dynamo on.
    clone = _spec("clone_of_doubled_row", ONE_ROW, _clone_of_mutated)
    if mutated_input_alias.aliases(mutated_input_alias.clone_row):
        message = _stage(clone, ONE_ROW).message
        assert "the difference arises in Inductor; it disappears with" in message
        # One level deeper: the culprit pass, and only it.
        assert "Inductor's removal of no-op ops off" in message
        assert "fusion" not in message
    write_back = _spec("double_on_two_narrows", TWO_NARROWS, lambda op, **args: op(**args))
    if dynamic_write_back.reproduces():
        batch = batch_signature([TWO_NARROWS, WIDER])
        assert "the difference arises in Inductor" in _stage(write_back, TWO_NARROWS, batch).message
    zero = Spec("first_set", FIRST_SET, st.nothing(), None)
    cases = [_first_set_case(3, -0.0), _first_set_case(5, -0.0)]
    if negative_zero_constant.reproduces():
        stage = _stage(zero, cases[0], batch_signature(cases))
        assert "the first compiler stage to disagree with eager is AOTAutograd" in stage.message

    def diverges_under_dynamo(op, **args):
        op(**args)
        return args["x"] + 1 if torch.compiler.is_compiling() else args["x"].clone()

    dynamo = _spec("dynamo_diverges", ONE_ROW, diverges_under_dynamo)
    stage = _stage(dynamo, ONE_ROW)
    assert not stage.blocking
    assert "the first compiler stage to disagree with eager is Dynamo" in stage.message


def test_no_stage_is_blamed_where_eager_already_raised():
    def refused_eagerly(op, **args):
        op(**args)
        if not torch.compiler.is_compiling():
            raise ValueError("eager refuses this program")
        return args["x"].clone()

    spec = _spec("refused_eagerly", ONE_ROW, refused_eagerly)
    failure = ConformanceFailure(
        "compiled", spec.label, "", compare_compiled(spec, ONE_ROW, INDUCTOR, None), [ONE_ROW]
    )
    *_, stage = CHECKS["compiled"].finish(spec, INDUCTOR, failure)
    assert stage.verdict == "stage" and not stage.blocking
    assert "no compiler stage is at fault: eager itself already disagrees" in stage.message
    assert "eager refuses this program" in stage.message and "Dynamo" not in stage.message


def test_a_known_fault_entry_that_misstates_its_releases_fails_the_gate():
    fixed_everywhere = dataclasses.replace(DYNAMIC_WRITE_BACK, releases=())
    message = disagreement(fixed_everywhere, reproduces=True)
    assert message == (
        f"the known fault 'dynamic-shape write-back' reproduces on torch {torch.__version__}, "
        "but its entry lists no release: update its releases in upstream/known_faults.json "
        "(repro: python upstream/dynamic_write_back.py)"
    )
    everywhere = dataclasses.replace(DYNAMIC_WRITE_BACK, releases=("",))
    assert "does not reproduce" in disagreement(everywhere, reproduces=False)
    assert disagreement(everywhere, reproduces=True) is None
    assert disagreement(fixed_everywhere, reproduces=False) is None


def test_a_script_that_raises_does_not_reproduce_its_fault(tmp_path):
    """Python exits 1 from an uncaught exception, as a script does where its
    fault reproduces: a release that refuses the script's program (torch
    2.15's AOTInductor raised on one) must not read as the fault."""
    outcomes = {"raises": "raise NotImplementedError('refused')", "shows": "sys.exit(1)"}
    outcomes["agrees"] = "sys.exit(0)"
    for name, ending in outcomes.items():
        (tmp_path / f"{name}.py").write_text(
            f"import sys\nif __name__ == '__main__':\n    {ending}\n"
        )
    fault = {n: dataclasses.replace(DYNAMIC_WRITE_BACK, script=str(tmp_path / n)) for n in outcomes}
    with pytest.raises(RuntimeError, match="(?s)failed to run: .*NotImplementedError: refused"):
        fault["raises"].reproduces()
    assert fault["shows"].reproduces() and not fault["agrees"].reproduces()


def test_a_known_fault_entry_that_misstates_a_deployment_fails_the_nightly():
    aoti_only = dataclasses.replace(DYNAMIC_WRITE_BACK, deployed=(("export", ()), ("aoti", ("",))))
    assert disagreement(aoti_only, reproduces=True, deployed="aoti") is None
    assert disagreement(aoti_only, reproduces=False, deployed="export") is None
    assert disagreement(aoti_only, reproduces=True, deployed="export") == (
        f"the known fault 'dynamic-shape write-back' reproduces under export on torch "
        f"{torch.__version__}, but its entry lists no release: update its deployed.export in "
        "upstream/known_faults.json (repro: python upstream/deployed.py export "
        "upstream/dynamic_write_back.py)"
    )
    assert "does not reproduce under aoti" in disagreement(aoti_only, False, "aoti")


def test_a_deployed_script_runs_with_its_compile_replaced_by_the_deployment(tmp_path):
    """``upstream/deployed.py`` hands the script's program to torch.export:
    a script that compiles a program export traces exits as the script
    does; one whose program export refuses fails to run (exit 3), never
    reproduces."""
    # Eagerly and under torch.compile x * 2; exported x * 3: exit 1 only if exported.
    (tmp_path / "exported.py").write_text(
        "import sys\nimport torch\n\n"
        "def program(x):\n    return x * (3 if torch.compiler.is_exporting() else 2)\n\n"
        "if __name__ == '__main__':\n"
        "    out = torch.compile(program, fullgraph=True)(torch.ones(3))\n"
        "    sys.exit(int(out[0].item() == 3))\n"
    )
    (tmp_path / "refused.py").write_text(
        "import torch\n\n"
        "def program(x):\n    return x + 1 if x.sum() > 0 else x - 1\n\n"
        "if __name__ == '__main__':\n"
        "    torch.compile(program)(torch.ones(3))\n"
    )
    fault = {
        n: dataclasses.replace(DYNAMIC_WRITE_BACK, script=str(tmp_path / n))
        for n in ("exported", "refused")
    }
    assert fault["exported"].reproduces("export") and not fault["exported"].reproduces()
    with pytest.raises(RuntimeError, match="(?s)deployed.py export .*failed to run: .*export"):
        fault["refused"].reproduces("export")


def test_every_known_fault_names_its_upstream_report_or_has_a_standalone_one():
    for fault in KNOWN_FAULTS:
        script = PACKAGE / "upstream" / f"{fault.script}.py"
        text = script.read_text()
        assert "import torch" in text and "from torch_conformance.oracles" not in text, script
        for reference in fault.upstream + fault.fixes:
            assert reference in text, (fault.name, reference)
