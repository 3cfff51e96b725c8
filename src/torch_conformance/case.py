"""Public: what a spec file builds its Cases of (see ``oracles.core.buffers``)."""

from torch_conformance.oracles.core.buffers import (
    DEFAULT,
    Buffer,
    Case,
    View,
    bind_views,
    check_value,
)
from torch_conformance.oracles.core.views import (
    VIEW_OPS,
    CaseError,
    ViewOp,
    apply_view_ops,
    check_view_ops,
)

__all__ = [
    "DEFAULT",
    "VIEW_OPS",
    "Buffer",
    "Case",
    "CaseError",
    "View",
    "ViewOp",
    "apply_view_ops",
    "bind_views",
    "check_value",
    "check_view_ops",
]
