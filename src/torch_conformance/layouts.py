"""Public: strategies of strided layouts (see ``oracles.strategies.strided``)."""

from torch_conformance.oracles.strategies.strided import (
    Layout,
    LayoutPlan,
    LayoutStructure,
    fused_columns,
    layout_plans,
    layout_structures,
    layouts_of,
    strided_layouts,
)

__all__ = [
    "Layout",
    "LayoutPlan",
    "LayoutStructure",
    "fused_columns",
    "layout_plans",
    "layout_structures",
    "layouts_of",
    "strided_layouts",
]
