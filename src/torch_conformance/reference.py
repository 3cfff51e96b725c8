"""Public: what a float64 reference returns (see ``oracles.core.expectation``)."""

from torch_conformance.oracles.core.expectation import (
    Expectation,
    Expected,
    exact,
    float32_excess,
    held_sign,
    judged_dtype,
    ulp_error,
)

__all__ = [
    "Expectation",
    "Expected",
    "exact",
    "float32_excess",
    "held_sign",
    "judged_dtype",
    "ulp_error",
]
