"""Fixtures the suite's own tests share, and the suite's Hypothesis profiles
(which its tests read, as a run of the suite registers them)."""

import os

import pytest
import torch

from torch_conformance.plugin import quiet_torch_trace
from torch_conformance.suites.policy import register_profiles

register_profiles()


def pytest_configure(config: pytest.Config) -> None:
    # As a run of the suite does: the suite's own tests compile too.
    quiet_torch_trace()


@pytest.fixture
def two_threads():
    """Torch on two threads: Inductor's CPU code uses atomics only with more than one."""
    threads = torch.get_num_threads()
    torch.set_num_threads(2)
    yield
    torch.set_num_threads(threads)


@pytest.fixture(autouse=True)
def own_verdict_store(monkeypatch, tmp_path_factory):
    """Each test's runs of the suite keep verdicts in a store of the test's
    own: a verdict kept by another test, or by the user's gate, would serve
    a record the test means to judge."""
    store = tmp_path_factory.mktemp("verdicts")
    options = " ".join(filter(None, [os.environ.get("PYTEST_ADDOPTS"), f"--verdict-store={store}"]))
    monkeypatch.setenv("PYTEST_ADDOPTS", options)
