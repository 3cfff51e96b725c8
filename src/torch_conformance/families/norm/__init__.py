"""RMS normalization: a fresh-output norm and the in-place fused residual add."""
