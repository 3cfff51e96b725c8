"""Value comparisons: bit for bit, or within a ULP budget of a float64 reference."""

from __future__ import annotations

from collections.abc import Sequence

import torch

from torch_conformance.oracles.core.expectation import Expected, ulp_error
from torch_conformance.oracles.core.findings import Finding
from torch_conformance.oracles.core.verdicts import VALUES

_BITS = {1: torch.uint8, 2: torch.int16, 4: torch.int32, 8: torch.int64}


def raw_bits(tensor: torch.Tensor) -> torch.Tensor:
    """The raw bits, so NaN equals NaN and -0.0 differs from 0.0."""
    if tensor.dtype == torch.bool:
        return tensor
    return tensor.contiguous().view(_BITS[tensor.element_size()])


def index_of(flat: int, shape: Sequence[int]) -> list[int]:
    index = []
    for size in reversed(shape):
        index.append(flat % size if size else 0)
        flat //= size if size else 1
    return index[::-1]


def bit_exact(
    label: str, got: torch.Tensor, want: torch.Tensor, got_mode: str, want_mode: str
) -> list[Finding]:
    """``got`` must equal ``want`` bit for bit (same shape and dtype first)."""
    if got.shape != want.shape or got.dtype != want.dtype:
        return [
            Finding(
                VALUES,
                f"{label} is {got.dtype}{list(got.shape)} in {got_mode} but "
                f"{want.dtype}{list(want.shape)} in {want_mode}",
            )
        ]
    differ = (raw_bits(got) != raw_bits(want)).reshape(-1)
    count = int(differ.sum())
    if not count:
        return []
    first = int(differ.nonzero()[0])
    where = index_of(first, got.shape)
    return [
        Finding(
            VALUES,
            f"{label}: {count} of {got.numel()} elements differ bit for bit "
            f"between {got_mode} and {want_mode} (first at {where}: "
            f"{got.reshape(-1)[first].item()!r} vs {want.reshape(-1)[first].item()!r})",
        )
    ]


def within_ulps(
    label: str, got: torch.Tensor, expected: Expected, budget: int, mode: str
) -> list[Finding]:
    """``got`` must lie within ``budget`` ULPs of the float64 reference
    (which is on the CPU: ``got`` is judged there)."""
    got = got.cpu()
    if tuple(got.shape) != tuple(expected.value.shape):
        return [
            Finding(
                VALUES,
                f"{label} has shape {list(got.shape)} in {mode} but the reference "
                f"gives {list(expected.value.shape)}",
            )
        ]
    if not got.is_floating_point():
        return bit_exact(label, got, expected.value.to(got.dtype), mode, "the reference")
    error = ulp_error(got, expected).reshape(-1)
    over = error > budget
    count = int(over.sum())
    if not count:
        return []
    worst = int(error.argmax())
    where = index_of(worst, got.shape)
    return [
        Finding(
            VALUES,
            f"{label}: {count} of {got.numel()} elements are more than {budget} "
            f"ULP from the float64 reference in {mode} (worst {float(error[worst]):.3g} "
            f"ULP at {where}: got {got.reshape(-1)[worst].item()!r}, reference "
            f"{expected.value.reshape(-1)[worst].item()!r}) [ULP budget {budget}]",
        )
    ]
