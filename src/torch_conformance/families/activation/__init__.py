"""Gated activations: silu(gate) * up into a caller-given result."""
