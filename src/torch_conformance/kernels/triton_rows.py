"""Triton's side of ``kernels.row_geometry``: where a program's row starts in a view
walked as (outer, inner) rows. Imported only where Triton runs."""

from __future__ import annotations

import triton
import triton.language as tl  # noqa: F401  (Triton needs it where a jit function is defined)


@triton.jit
def row_start(pointer, row, inner, outer_stride, inner_stride):
    """The first element of row ``row`` (see ``kernels.row_geometry.row_geometry``)."""
    return pointer + (row // inner) * outer_stride + (row % inner) * inner_stride
