"""Findings: what a verdict reports, and how a tensor is named in a message."""

from __future__ import annotations

import dataclasses

import torch


@dataclasses.dataclass(frozen=True)
class Finding:
    """One disagreement a verdict found. ``verdict`` names the verdict.

    A Finding that is not ``blocking`` is reported but does not fail the
    check: it states a difference no compiled program can observe.
    """

    verdict: str
    message: str
    blocking: bool = True

    def __str__(self) -> str:
        return f"[{self.verdict}] {self.message}"


class ConformanceFailure(AssertionError):
    """A check found disagreements; the message lists every Finding."""

    def __init__(self, check: str, op: str, case: str, findings: list[Finding]):
        self.findings = findings
        self.case = case
        lines = "\n".join(f"  {finding}" for finding in findings)
        super().__init__(f"{check} check of {op} failed on {case}\n{lines}")


def describe_tensor(tensor: torch.Tensor) -> str:
    dtype = str(tensor.dtype).removeprefix("torch.")
    return (
        f"{dtype}{list(tensor.shape)} stride={tuple(tensor.stride())} "
        f"offset={tensor.storage_offset()}"
    )
