"""The registries the code is built on: the Verdicts, the checks found in
``oracles/checks/``, the view operations, and the profiles' policy."""

from __future__ import annotations

import dataclasses
import json

import pytest
import torch
from hypothesis import settings

from torch_conformance.oracles.checks import CHECKS
from torch_conformance.oracles.core.buffers import Case
from torch_conformance.oracles.core.program import STEPS
from torch_conformance.oracles.core.verdicts import VERDICTS
from torch_conformance.oracles.core.views import (
    VIEW_OPS,
    apply_view_ops,
    view_expression,
    view_ranks,
)
from torch_conformance.oracles.modes.compiled import COMPILED
from torch_conformance.oracles.modes.deployment import DEPLOYMENTS
from torch_conformance.oracles.triage.engine import UPSTREAM, Situation
from torch_conformance.oracles.triage.faults import FAULTS, KNOWN_FAULTS, FaultEntryError, _fault
from torch_conformance.oracles.triage.switches import SWITCHES, together
from torch_conformance.suites.policy import PROFILES, current, selected_modes
from torch_conformance.upstream.deployed import HOW


def test_every_check_is_found_in_order_and_names_registered_verdicts():
    assert list(CHECKS) == [
        "reference",
        "backward",
        "fake",
        "schema",
        "compiled",
        "compiled_backward",
        "programs",
        "domain_edges",
    ]
    for check in CHECKS.values():
        unknown = set(check.verdicts) - set(VERDICTS)
        assert not unknown, f"the {check.name} check names unregistered verdicts {unknown}"
        assert len(set(check.verdicts)) == len(check.verdicts), check.name


def test_a_check_that_can_block_writes_a_repro_script():
    for check in CHECKS.values():
        blocks = check.name != "domain_edges"  # its Findings never block
        assert (check.script is not None) == blocks, check.name


def test_each_deployment_is_named_once_and_its_standalone_script_takes_those_names():
    deployed = {mode.deploy.name: name for name, mode in COMPILED.items() if mode.deploy}
    assert deployed == {name: name for name in DEPLOYMENTS}, "a deployment Mode is named for it"
    # upstream/deployed.py runs with plain torch, so it spells them itself.
    assert HOW == tuple(DEPLOYMENTS)


def test_program_views_are_the_cases_views_made_and_written_one_way():
    x = torch.arange(24).view(2, 3, 4)
    for name, kind in STEPS.items():
        if kind.view is not None:
            assert kind.view is VIEW_OPS[name]
    ops = (("permute", (2, 0, 1)), ("slice", -1, 0, None, 2), ("unfold", 0, 2, 1))
    text = view_expression("x", ops, view_ranks(x, ops), repr)
    assert text == "x.permute(2, 0, 1)[:, :, 0:None:2].unfold(0, 2, 1)"
    assert torch.equal(eval(text, {"x": x}), apply_view_ops(x, ops))


def test_all_selects_every_compiled_mode():
    assert selected_modes("all") == list(COMPILED)


def test_each_profile_is_one_object_hypothesis_loads_by_its_name():
    for name, profile in PROFILES.items():
        assert profile.name == name
        assert settings.get_profile(name).max_examples == profile.max_examples
        modes = profile.modes
        assert modes == "all" or set(modes) <= set(COMPILED), name
    gate, nightly = PROFILES["ci"], PROFILES["nightly"]
    assert gate.modes == ("inductor",) and nightly.modes == "all"
    assert not gate.known_fault_scripts and nightly.known_fault_scripts
    assert gate.compiled_batches < nightly.compiled_batches


def test_a_profile_of_the_users_own_runs_every_mode_with_its_examples():
    settings.register_profile("users_own", max_examples=7)
    try:
        settings.load_profile("users_own")
        assert current().modes == "all" and current().max_examples == 7
        assert selected_modes(None) == list(COMPILED)
    finally:
        settings.load_profile("dev")
    assert current() is PROFILES["dev"]


def test_known_faults_are_data_checked_as_they_load():
    assert len(KNOWN_FAULTS) == len(FAULTS) and all(f.path.is_file() for f in KNOWN_FAULTS)
    [entry] = [
        e
        for e in json.loads((UPSTREAM / "known_faults.json").read_text())
        if e["script"] == "cat_view"
    ]
    with pytest.raises(
        FaultEntryError, match="'view of a cat': no fact 'step cats'; no witness 'aot'"
    ):
        _fault({**entry, "when": ["step cats"], "supported_by": "aot"})
    with pytest.raises(FaultEntryError, match="no switch 'reinplacing'"):
        _fault({**entry, "evidence": "culprit", "culprits": ["reinplacing"]})
    with pytest.raises(FaultEntryError, match="no predictor 'zeros'"):
        _fault({**entry, "predicts": "zeros"})
    with pytest.raises(FaultEntryError, match="no deployment 'aot'"):
        _fault({**entry, "deployed": {"aoti": ["2.13."], "aot": []}})
    # Evidence is required: "another stage agrees" alone is none.
    with pytest.raises(FaultEntryError, match="no evidence ''"):
        _fault({key: value for key, value in entry.items() if key != "evidence"})
    situation = Situation(Case({}, {}), batched=True, writes=False, kinds=("cat", "op", "view"))
    assert FAULTS["cat_view"].applies(situation)
    assert not FAULTS["cat_view"].applies(dataclasses.replace(situation, kinds=("cat", "op")))


def test_switches_thrown_together_turn_off_everything_each_turns_off():
    passes = [SWITCHES["reinplace"], SWITCHES["remove_noop_ops"], SWITCHES["buffer_reuse"]]
    thrown = together(passes)
    assert dict(thrown.config) == {
        "disabled_passes": "reinplace_inplaceable_ops,remove_noop_ops",
        "inplace_buffers": False,
        "allow_buffer_reuse": False,
    }
    assert thrown.name == "reinplace+remove_noop_ops+buffer_reuse"
    assert together([SWITCHES["fusion"]]) is SWITCHES["fusion"]
    with pytest.raises(AssertionError, match="one kind"):
        together([SWITCHES["fusion"], SWITCHES["autograd_cache"]])
