"""Compile caches are keyed by what a cached graph depends on unseen."""

from __future__ import annotations

import torch

from tests.zoo_helpers import needs_kernels, zoo_spec
from torch_conformance.families.rope import zoo
from torch_conformance.oracles.modes.cache import fingerprint

pytestmark = needs_kernels


def _fingerprint_with(name: str) -> str:
    spec = zoo_spec(name)
    with spec.installed():
        return fingerprint(spec.overload)


def test_a_changed_fake_gets_a_fresh_cache_key():
    gemma4 = _fingerprint_with("rope_returns_inputs_gemma4_fake")
    mirrored = _fingerprint_with("rope_returns_inputs_mirrored_fake")
    assert gemma4 != mirrored
    assert _fingerprint_with("rope_returns_inputs_gemma4_fake") == gemma4


def test_the_key_covers_the_torch_version_and_the_loaded_kernels(monkeypatch):
    zoo.register()
    op = torch.ops.conformance_zoo.rotary_embedding_overrun.default
    key = fingerprint(op)
    monkeypatch.setattr(torch, "__version__", "0.0.0")
    assert fingerprint(op) != key
    monkeypatch.undo()
    monkeypatch.setattr(torch.ops, "loaded_libraries", set())
    assert fingerprint(op) != key


def test_a_program_of_torch_ops_alone_is_keyed_by_the_torch_version_alone(monkeypatch):
    zoo.register()
    key = fingerprint(None)
    monkeypatch.setattr(torch.ops, "loaded_libraries", set())
    assert fingerprint(None) == key
    monkeypatch.setattr(torch, "__version__", "0.0.0")
    assert fingerprint(None) != key
