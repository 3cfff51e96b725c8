"""The MRoPE family: the C++ and Triton ops' registration and fakes, and the
pure-PyTorch section selections model code runs.

A Qwen2-VL-style model gives every token three positions (temporal, height,
width). ``cos_sin_cache[positions]`` is ``[3, T, rotary_dim]``; its cos and
sin halves, ``x = [3, T, rotary_dim // 2]`` each, become ``[T, rotary_dim //
2]`` by taking each channel from one row, as the model's ``mrope_section``
(three counts summing to ``rotary_dim // 2``) says: interleaved (Qwen3-VL,
channel ``c`` from row ``c % 3`` while that row's section lasts) or chunked
(Qwen2-VL, ``section[0]`` channels from row 0, then row 1, then row 2).
"""

from __future__ import annotations

import functools

import torch

from torch_conformance.kernels.build import load_kernels


def section_rows(
    mrope_section: list[int], half: int, interleaved: bool, device: torch.device
) -> torch.Tensor:
    """The row (0 temporal, 1 height, 2 width) each of ``half`` channels takes."""
    if len(mrope_section) != 3 or sum(mrope_section) != half or min(mrope_section) < 0:
        raise ValueError(
            f"mrope: mrope_section {list(mrope_section)} must be three counts summing to "
            f"rotary_dim / 2 = {half}"
        )
    if not interleaved:
        return torch.repeat_interleave(torch.arange(3, device=device), torch.tensor(mrope_section))
    channel = torch.arange(half, device=device)
    rows = channel % 3
    return torch.where((rows > 0) & (channel < 3 * torch.tensor(mrope_section)[rows]), rows, 0)


def apply_interleaved_rope_slices(x: torch.Tensor, mrope_section: list[int]) -> torch.Tensor:
    """The old form: a clone of row 0, then two stride-3 slice assignments
    (seed 004: miscompiled on CUDA with torch 2.12 and 2.13)."""
    out = x[0].clone()
    out[..., 1 : mrope_section[1] * 3 : 3] = x[1, ..., 1 : mrope_section[1] * 3 : 3]
    out[..., 2 : mrope_section[2] * 3 : 3] = x[2, ..., 2 : mrope_section[2] * 3 : 3]
    return out


def apply_interleaved_rope_where(x: torch.Tensor, mrope_section: list[int]) -> torch.Tensor:
    """The new form: two ``torch.where`` over channel masks."""
    channel = torch.arange(x.shape[-1], device=x.device)
    height = (channel % 3 == 1) & (channel < 3 * mrope_section[1])
    width = (channel % 3 == 2) & (channel < 3 * mrope_section[2])
    return torch.where(width, x[2], torch.where(height, x[1], x[0]))


def apply_chunked_sections(x: torch.Tensor, mrope_section: list[int]) -> torch.Tensor:
    """Qwen2-VL's selection: section ``i`` of the channels from row ``i``."""
    return torch.cat([part[i] for i, part in enumerate(x.split(mrope_section, dim=-1))], dim=-1)


def sections_fake(x: torch.Tensor, mrope_section: list[int], interleaved: bool) -> torch.Tensor:
    """Mirrors the kernel: the chunked output is channel-major."""
    tokens, half = x.shape[1], x.shape[2]
    if interleaved:
        return x.new_empty((tokens, half))
    return x.new_empty((half, tokens)).t()


def no_output_fake(*args) -> None:
    return None


@functools.cache
def register() -> None:
    """Build and load the C++ ops and register their fakes (once)."""
    load_kernels()
    torch.library.register_fake("conformance::mrope_sections", sections_fake)
    torch.library.register_fake("conformance::mrope_rotary_embedding", no_output_fake)
