"""``--device``: a name is checked before anything runs, and a device this
machine lacks stops the run in one line."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import torch

from oracles.core.devices import DeviceError, parse_device

CHECKOUT = Path(__file__).resolve().parents[2]
NO_CUDA = not torch.cuda.is_available()


@pytest.mark.parametrize(("name", "spelt"), [("cpu", "cpu"), ("cpu:0", "cpu")])
def test_the_cpu_is_spelt_one_way(name, spelt):
    assert parse_device(name) == spelt


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("gpu", "not a device; Cases live on cpu (the default) or cuda[:N]"),
        ("mps", "Cases live on cpu (the default) or cuda[:N], not on mps"),
    ],
)
def test_an_unknown_device_is_refused(name, message):
    with pytest.raises(DeviceError) as raised:
        parse_device(name)
    assert str(raised.value) == message


def test_a_torch_without_cuda_says_so(monkeypatch):
    monkeypatch.setattr(torch.version, "cuda", None)
    monkeypatch.setattr(torch.version, "hip", None)
    with pytest.raises(DeviceError) as raised:
        parse_device("cuda")
    assert str(raised.value) == (
        f"this torch build ({torch.__version__}) has no CUDA; --device=cpu is the default"
    )


def test_a_machine_without_a_cuda_device_says_so(monkeypatch):
    monkeypatch.setattr(torch.version, "cuda", "13.0")
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    with pytest.raises(DeviceError) as raised:
        parse_device("cuda:0")
    assert str(raised.value) == (
        "this machine has no CUDA device torch can use; --device=cpu is the default"
    )


def test_an_index_past_the_devices_says_how_many_there_are(monkeypatch):
    monkeypatch.setattr(torch.version, "cuda", "13.0")
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 2)
    assert parse_device("cuda:1") == "cuda:1"
    with pytest.raises(DeviceError) as raised:
        parse_device("cuda:2")
    assert str(raised.value) == (
        "this machine has 2 CUDA device(s), cuda:0 to cuda:1; --device=cpu is the default"
    )


def _collect(*options: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-n", "0", "--collect-only", "-q",
         "-p", "no:cacheprovider", *options],
        cwd=CHECKOUT, capture_output=True, text=True, timeout=300,
    )  # fmt: skip


@pytest.mark.skipif(not NO_CUDA, reason="this machine has CUDA: --device=cuda runs here")
def test_device_cuda_without_cuda_stops_in_one_line():
    result = _collect("--device=cuda")
    assert result.returncode == pytest.ExitCode.USAGE_ERROR
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("ERROR: --device=cuda: ")
    assert lines[0].endswith("; --device=cpu is the default")


def test_an_unknown_device_is_a_usage_error():
    result = _collect("--device=tpu:0")
    assert result.returncode == pytest.ExitCode.USAGE_ERROR
    assert "ERROR: --device=tpu:0: " in result.stderr
