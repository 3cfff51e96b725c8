"""A program calling the tied namespace's ops at a few token counts, widths
and group sizes. Run it under the recorder::

    python -m torch_conformance.suites.record conformance_tied --out calls.json -- \
        python -m tests.recorded.tied_program
"""

from __future__ import annotations

import torch

import tests.recorded.library_ops  # noqa: F401  (registers the ops)
import tests.recorded.tied_ops  # noqa: F401

ops = torch.ops.conformance_tied


def main() -> None:
    generator = torch.Generator().manual_seed(0)
    table = torch.randn(48, 16, generator=generator)
    cache = torch.zeros(40, 16)
    for tokens, width, group in ((4, 128, 32), (7, 256, 64), (3, 128, 64), (5, 256, 32)):
        x = torch.randn(tokens, width, generator=generator)
        scale = x.abs().unflatten(-1, (-1, group)).amax(-1) / 127
        ops.group_dequantize(ops.group_quantize(x, scale, group), scale, group)
        ids = torch.arange(tokens) * 3 + tokens
        rows = ops.gather_rows(table, ids)
        ops.paged_write(cache[: 8 * tokens], torch.arange(tokens) * 2, rows)
        ops.pair_sum(ops.negated(ops.halved(x[: 2 * (tokens // 2)])))


if __name__ == "__main__":
    main()
