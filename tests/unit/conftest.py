"""The unit tier compiles nothing: a test that hands a program to
torch.compile or torch.export fails, saying where it belongs."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import torch


@pytest.fixture(autouse=True)
def _compiles_nothing(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    from torch._dynamo.utils import counters

    exported = []
    export = torch.export.export

    def counted(*args, **kwargs):
        exported.append(args)
        return export(*args, **kwargs)

    monkeypatch.setattr(torch.export, "export", counted)
    frames = counters["frames"]["total"]
    yield
    compiled = counters["frames"]["total"] - frames
    if compiled or exported:
        pytest.fail(
            f"this unit test compiled ({compiled} frames through torch.compile, "
            f"{len(exported)} exports): tests/unit compiles nothing; move it to "
            "tests/compiled",
            pytrace=False,
        )
