"""Write comparisons: every buffer before and after, against what the op may write."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import torch

from torch_conformance.oracles.comparisons.values import index_of, raw_bits
from torch_conformance.oracles.core.buffers import Case
from torch_conformance.oracles.core.expectation import Expectation, ulp_error
from torch_conformance.oracles.core.findings import Finding
from torch_conformance.oracles.core.verdicts import WRITES


def _changed(before: torch.Tensor, after: torch.Tensor) -> torch.Tensor:
    return (raw_bits(before) != raw_bits(after)).reshape(-1)


def writes(
    case: Case,
    observation,
    declared: set[str],
    expectation: Expectation | None,
    budget: int,
) -> list[Finding]:
    """Compare every buffer before and after with what the op may write.

    ``declared`` names the arguments the op declares it writes. Reports writes
    to other arguments, writes outside every argument's view, and declared
    writes that never happen although the reference says values change.
    """
    footprints = {
        name: (view.buffer, case.footprint(name))
        for name, view in case.args.items()
        if hasattr(view, "buffer")
    }
    return buffer_writes(
        observation.buffers_before,
        observation.buffers_after,
        observation.args,
        footprints,
        declared,
        expectation,
        budget,
    )


def buffer_writes(
    buffers_before: Mapping[str, torch.Tensor],
    buffers_after: Mapping[str, torch.Tensor],
    args: Mapping[str, Any],
    footprints: Mapping[str, tuple[str, torch.Tensor]],
    declared: set[str],
    expectation: Expectation | None,
    budget: int,
) -> list[Finding]:
    """``writes`` on plain data: ``footprints`` maps each tensor argument to
    its buffer's name and the flat indices of the elements it covers there."""
    found = []
    for buffer_name, before in buffers_before.items():
        changed = _changed(before, buffers_after[buffer_name])
        on_buffer = {n: idx for n, (b, idx) in footprints.items() if b == buffer_name}
        covered = torch.zeros_like(changed)
        writable = torch.zeros_like(changed)
        for name, footprint in on_buffer.items():
            covered[footprint] = True
            if name in declared:
                writable[footprint] = True
        for name, footprint in on_buffer.items():
            if name in declared:
                continue
            hit = changed[footprint] & ~writable[footprint]
            if hit.any():
                found.append(
                    Finding(
                        WRITES,
                        f"the op wrote {int(hit.sum())} element(s) of {name!r}, "
                        "which its schema declares read-only: annotate it "
                        "Tensor(a!) or stop writing it",
                    )
                )
        outside = changed & ~covered
        if outside.any():
            first = int(outside.nonzero()[0])
            found.append(
                Finding(
                    WRITES,
                    f"the op wrote {int(outside.sum())} element(s) of buffer "
                    f"{buffer_name!r} outside every argument's view (first at "
                    f"{index_of(first, before.shape)} of its {list(before.shape)}): "
                    "a write past the end of a slice",
                )
            )
        for name in declared & on_buffer.keys():
            expected = (expectation.writes if expectation else {}).get(name)
            if expected is None or changed[on_buffer[name]].any():
                continue
            if (ulp_error(args[name], expected) > budget).any():
                found.append(
                    Finding(
                        WRITES,
                        f"the schema declares {name!r} written and the reference "
                        "changes it, but the op left every element of it as it was",
                    )
                )
    return found
