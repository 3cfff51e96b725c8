"""The device a run's Cases live on: ``cpu`` (the default) or ``cuda[:N]``.

The name is checked once, before anything runs, so a run asked for a device
this machine lacks stops in one line instead of failing in every test.
"""

from __future__ import annotations

import torch

DEFAULT_DEVICE = "cpu"
# The device types a Case can live on: the CPU, and CUDA where torch has it.
KINDS = ("cpu", "cuda")
# Where an op with no kernel of its own (pure PyTorch) runs: anywhere torch does.
ANYWHERE = KINDS


class DeviceError(ValueError):
    """A device name is malformed, or names a device this machine lacks."""


def parse_device(name: str) -> str:
    """``name`` checked and spelt as torch spells it (``cuda:0`` stays
    ``cuda:0``, ``cuda`` stays ``cuda``; ``cpu:0`` is ``cpu``, the one CPU
    device); otherwise DeviceError, in one line that says what is missing."""
    try:
        device = torch.device(name)
    except (RuntimeError, ValueError):
        raise DeviceError("not a device; Cases live on cpu (the default) or cuda[:N]") from None
    if device.type not in KINDS:
        raise DeviceError(f"Cases live on cpu (the default) or cuda[:N], not on {device.type}")
    if device.type == "cuda":
        _check_cuda(device.index)
        return str(device)
    return DEFAULT_DEVICE


def _check_cuda(index: int | None) -> None:
    if torch.version.cuda is None and torch.version.hip is None:
        missing = f"this torch build ({torch.__version__}) has no CUDA"
    elif not torch.cuda.is_available():
        missing = "this machine has no CUDA device torch can use"
    else:
        count = torch.cuda.device_count()
        if index is None or index < count:
            return
        missing = f"this machine has {count} CUDA device(s), cuda:0 to cuda:{count - 1}"
    raise DeviceError(f"{missing}; --device=cpu is the default")


def device_type(device: str) -> str:
    """``cuda`` of ``cuda:1``: what a spec or Mode says it runs on."""
    return torch.device(device).type


def elsewhere(what: str, devices: tuple[str, ...], device: str, why: str = "") -> str | None:
    """Why ``what``, which runs on ``devices``, cannot run on ``device`` (with
    ``why``, where it says more), or None where it can."""
    if device_type(device) in devices:
        return None
    reason = f"{what} runs on {' and '.join(devices)} only, not on {device}"
    return f"{reason}: {why}" if why else reason
