"""Fixtures the suite's own tests share, and the suite's Hypothesis profiles
(which its tests read, as a run of the suite registers them)."""

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
