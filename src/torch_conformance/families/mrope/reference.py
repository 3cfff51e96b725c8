"""The MRoPE family's float64 references: section selection and rotation."""

from __future__ import annotations

import torch

from torch_conformance.families.rope.reference import rotate_heads
from torch_conformance.oracles.core.expectation import Expectation, Expected, exact


def channel_rows(mrope_section: list[int], half: int, interleaved: bool) -> torch.Tensor:
    """The row each channel takes, from the definition: interleaved, channel
    ``c`` is height (1) where ``c % 3 == 1 and c < 3 * section[1]``, width (2)
    where ``c % 3 == 2 and c < 3 * section[2]``, temporal (0) otherwise;
    chunked, ``section[i]`` consecutive channels of row ``i``."""
    if interleaved:
        return torch.tensor(
            [
                1
                if c % 3 == 1 and c < 3 * mrope_section[1]
                else 2
                if c % 3 == 2 and c < 3 * mrope_section[2]
                else 0
                for c in range(half)
            ]
        )
    return torch.tensor([row for row, count in enumerate(mrope_section) for _ in range(count)])


def select(x: torch.Tensor, mrope_section: list[int], interleaved: bool) -> torch.Tensor:
    """``x`` ``[3, T, half]`` -> ``[T, half]``, each channel from its row, in float64."""
    rows = channel_rows(mrope_section, x.shape[-1], interleaved)
    index = rows.expand(1, x.shape[1], -1)
    return x.to(torch.float64).gather(0, index).squeeze(0)


def interleaved_outputs(x: torch.Tensor, mrope_section: list[int]) -> Expectation:
    return Expectation(outputs=(exact(select(x, mrope_section, True)),))


def chunked_outputs(x: torch.Tensor, mrope_section: list[int]) -> Expectation:
    return Expectation(outputs=(exact(select(x, mrope_section, False)),))


def sections_outputs(x: torch.Tensor, mrope_section: list[int], interleaved: bool) -> Expectation:
    return Expectation(outputs=(exact(select(x, mrope_section, interleaved)),))


def _rotate(x, positions, head_size, cache, mrope_section, interleaved, is_neox) -> Expected:
    cos, sin = cache.to(torch.float64)[positions].chunk(2, -1)  # [3, T, half] each
    return rotate_heads(
        x,
        select(cos, mrope_section, interleaved),
        select(sin, mrope_section, interleaved),
        head_size,
        is_neox,
    )


def mrope_writes(
    positions: torch.Tensor,
    query: torch.Tensor,
    key: torch.Tensor,
    head_size: int,
    cos_sin_cache: torch.Tensor,
    mrope_section: list[int],
    interleaved: bool,
    is_neox: bool,
) -> Expectation:
    """For an op that rotates query and key in place."""
    rotation = (positions, head_size, cos_sin_cache, mrope_section, interleaved, is_neox)
    return Expectation(writes={"query": _rotate(query, *rotation), "key": _rotate(key, *rotation)})
