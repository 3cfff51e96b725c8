"""A spec of an op whose fake is a closure (see ``closure_ops``)."""

from __future__ import annotations

import closure_ops  # noqa: F401  (registers the ops)
import torch
from hypothesis import strategies as st

from torch_conformance.case import Buffer, Case, View
from torch_conformance.spec import Spec

CASE = Case({"x": Buffer((3, 5), torch.float32)}, {"x": View("x")})
SPECS = [Spec("closure_double", "closure_user::double", st.just(CASE), None, examples=(CASE,))]
