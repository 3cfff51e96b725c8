"""A program calling the wild namespace's ops as a model and its data
pipeline would, at a few sizes. Run it under the recorder::

    python -m torch_conformance.suites.record conformance_wild --out calls.json -- \
        python -m tests.recorded.wild_program
"""

from __future__ import annotations

import torch

from tests.recorded.wild_ops import QuantizedWeight

ops = torch.ops.conformance_wild


def main() -> None:
    generator = torch.Generator().manual_seed(0)

    def randn(*shape: int) -> torch.Tensor:
        return torch.randn(*shape, generator=generator)

    for tokens, width in ((4, 8), (6, 16), (10, 8)):
        x = randn(tokens, width)
        ops.named(x, x + 1, randn(tokens, width), 2, 0.5, "gelu", 0)
        ops.named_more(x, randn(tokens, width), randn(tokens, width), x * 2, 3, 1, 0)
        ops.nonzero_rows(x)
        for stats in (True, False):
            ops.maybe_stats(x, stats)
        ops.split_rows(x, 2)
        ops.scale(x, 0.25)
        ops.scale.out(x, 0.25, torch.empty_like(x))
        ops.soft_clip(x, 3.0)
        ops.soft_clip(x.to(torch.bfloat16), 3.0)
        weight = QuantizedWeight(torch.randint(-8, 8, (width // 2, width), dtype=torch.int8))
        ops.qmatmul(x, weight, randn(width // 2, 1))
        ops.stack_sum([x, randn(tokens, width), randn(tokens, width)])
        ops.fragile(x)
        ops.outer(x)
        ops.pack4(randn(4 * tokens, width))
    for blocksize, count in ((32, 100), (64, 100), (32, 64), (16, 7)):
        q = torch.randint(-127, 128, (count,), dtype=torch.int8, generator=generator)
        ops.block_dequant(q, randn(-(-count // blocksize)), blocksize)
    for rows, cols, blocksize in ((3, 40, 32), (5, 24, 16)):
        q = torch.randint(-127, 128, (rows, cols), dtype=torch.int8, generator=generator)
        ops.block_dequant(q, randn(-(-rows * cols // blocksize)), blocksize, randn(cols))
    for lengths in ([3, 0, 5], [2, 2], [1, 4, 1, 6]):
        values = randn(sum(lengths), 4)
        offsets = torch.tensor([0, *torch.tensor(lengths).cumsum(0).tolist()])
        ops.jagged_sum(values, offsets)
        ops.segment_sum(values, torch.tensor(lengths))
    # pack4's structures: the 1-D call, the one its fake gets wrong, comes fifth.
    ops.pack4(randn(8, 2, 2))
    ops.pack4(randn(4, 4).double())
    ops.pack4(randn(4, 4).to(torch.bfloat16))
    ops.pack4(randn(6))


if __name__ == "__main__":
    main()
