"""A decoder layer's forward pass over a few steps of other token counts,
calling the ops of ``layer_ops`` as model code does (q and k are column
slices of one fused qkv buffer). Run it under the recorder::

    python -m torch_conformance.suites.record conformance,conformance_zoo --out calls.json -- \
        python -m tests.recorded.decoder
"""

from __future__ import annotations

import torch

import tests.recorded.layer_ops  # noqa: F401  (registers the ops)

HIDDEN, HEADS, KV_HEADS, HEAD = 64, 4, 2, 16
INTERMEDIATE, MAX_POSITION = 96, 128


def weights(generator: torch.Generator) -> dict[str, torch.Tensor]:
    def w(*shape: int) -> torch.Tensor:
        return torch.randn(shape, generator=generator) / shape[0] ** 0.5

    angles = torch.arange(MAX_POSITION)[:, None] / 10_000 ** (torch.arange(HEAD // 2) / HEAD)
    return {
        "norm": 1 + w(HIDDEN) / 8,
        "qkv": w(HIDDEN, (HEADS + 2 * KV_HEADS) * HEAD),
        "o": w(HEADS * HEAD, HIDDEN),
        "gate_up": w(HIDDEN, 2 * INTERMEDIATE),
        "down": w(INTERMEDIATE, HIDDEN),
        "cos_sin_cache": torch.cat([angles.cos(), angles.sin()], -1),
    }


def layer(hidden, residual, positions, w):
    ops, zoo = torch.ops.conformance, torch.ops.conformance_zoo
    ops.fused_add_rms_norm(hidden, residual, w["norm"], 1e-6)
    qkv = hidden @ w["qkv"]
    q, k, v = qkv.split([HEADS * HEAD, KV_HEADS * HEAD, KV_HEADS * HEAD], -1)
    q, k = zoo.rotary_embedding_cpu(positions, q, k, HEAD, w["cos_sin_cache"], True)
    scores = q.view(-1, HEADS, HEAD) * k.repeat(1, HEADS // KV_HEADS).view(-1, HEADS, HEAD)
    attended = scores.softmax(-1) * v.repeat(1, HEADS // KV_HEADS).view(-1, HEADS, HEAD)
    hidden = attended.flatten(1) @ w["o"]
    hidden, residual = zoo.add_rms_norm_returns_one(hidden, residual, w["norm"], 1e-6)
    gate_up = hidden @ w["gate_up"]
    act = gate_up.new_empty(gate_up.shape[0], INTERMEDIATE)
    ops.silu_and_mul(act, gate_up)
    return ops.rms_norm(act @ w["down"] + residual, w["norm"], 1e-6)


def main() -> None:
    generator = torch.Generator().manual_seed(0)
    w = weights(generator)
    for tokens in (7, 1, 12, 3):
        hidden = torch.randn(tokens, HIDDEN, generator=generator)
        residual = torch.randn(tokens, HIDDEN, generator=generator)
        positions = torch.arange(tokens) + 5
        layer(hidden, residual, positions, w)


if __name__ == "__main__":
    main()
