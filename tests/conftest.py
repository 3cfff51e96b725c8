"""Fixtures the suite's own tests share."""

import pytest
import torch


@pytest.fixture
def two_threads():
    """Torch on two threads: Inductor's CPU code uses atomics only with more than one."""
    threads = torch.get_num_threads()
    torch.set_num_threads(2)
    yield
    torch.set_num_threads(threads)
