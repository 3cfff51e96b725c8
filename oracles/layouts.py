"""Public: strategies of strided layouts (see ``oracles.strategies.layouts``)."""

from oracles.strategies.layouts import Layout, fused_columns, strided_layouts

__all__ = ["Layout", "fused_columns", "strided_layouts"]
