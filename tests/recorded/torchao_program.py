"""A small CPU program using torchao's quantization ops as a model team
would: bf16 and fp32 weights (contiguous, transposed, row and column slices
of a fused qkv weight) quantized per row and per group through the affine
primitives, the float8 ops, and ``quantize_`` of a small model plus a
forward. Run under the recorder from any folder::

    python -m torch_conformance.suites.record torchao --out calls.json -- python torchao_program.py
"""

from __future__ import annotations

import torch
from torchao.quantization import Int8WeightOnlyConfig, PerGroup, quantize_
from torchao.quantization.quant_primitives import (
    MappingType,
    choose_qparams_affine,
    dequantize_affine,
    quantize_affine,
)

HIDDEN = 64


def weights(dtype: torch.dtype) -> list[torch.Tensor]:
    qkv = torch.randn(3 * HIDDEN, HIDDEN, dtype=dtype)
    w = torch.randn(HIDDEN, 2 * HIDDEN, dtype=dtype)
    return [w, w.t(), qkv[HIDDEN : 2 * HIDDEN], qkv[:, HIDDEN // 2 :], qkv.t()[:, HIDDEN:]]


def affine(w: torch.Tensor, block: list[int], mapping: MappingType, dtype: torch.dtype) -> None:
    zero_dtype = torch.int32 if mapping == MappingType.ASYMMETRIC else torch.int8
    scale, zero = choose_qparams_affine(
        w, mapping, block, dtype, scale_dtype=torch.float32, zero_point_dtype=zero_dtype,
        keepdim=True,
    )  # fmt: skip
    q = quantize_affine(w, block, scale, zero, dtype)
    dequantize_affine(q, block, scale, zero, dtype, output_dtype=w.dtype)


def main() -> None:
    torch.manual_seed(0)
    ops = torch.ops.torchao
    for dtype in (torch.float32, torch.bfloat16):
        for w in weights(dtype):
            rows, cols = w.shape
            blocks = [[1, cols], *([1, g] for g in (32, 64) if cols % g == 0)]
            for block in blocks:
                affine(w, block, MappingType.SYMMETRIC, torch.int8)
                affine(w, block, MappingType.ASYMMETRIC, torch.uint8)
            for block in [*blocks[:2], [rows, cols]]:
                scale = ops.choose_scale_float8(w, block, torch.float8_e4m3fn)
                q = ops.quantize_affine_float8_non_decomposed(w, scale, torch.float8_e4m3fn)
                ops.dequantize_affine_float8_non_decomposed(q, scale, dtype)
        for config in (Int8WeightOnlyConfig(), Int8WeightOnlyConfig(granularity=PerGroup(32))):
            model = torch.nn.Sequential(
                torch.nn.Linear(HIDDEN, 2 * HIDDEN), torch.nn.ReLU(), torch.nn.Linear(2 * HIDDEN, 8)
            ).to(dtype)
            with torch.no_grad():
                quantize_(model, config)
                model(torch.randn(4, HIDDEN, dtype=dtype))


if __name__ == "__main__":
    main()
