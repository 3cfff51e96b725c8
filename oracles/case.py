"""Public: what a spec file builds its Cases of (see ``oracles.core.case``)."""

from oracles.core.case import DEFAULT, Buffer, Case, View
from oracles.core.views import VIEW_OPS, CaseError, apply_view_ops

__all__ = ["DEFAULT", "VIEW_OPS", "Buffer", "Case", "CaseError", "View", "apply_view_ops"]
