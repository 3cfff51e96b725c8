"""The backward checks' Cases: the spec's, each with the layouts of the
upstream gradients its backward receives (``Case.upstream``)."""

from __future__ import annotations

import dataclasses

from hypothesis import strategies as st

from oracles.core.case import Case
from oracles.core.gradients import UPSTREAM_LAYOUTS
from oracles.core.spec import Spec


def upstream_cases(spec: Spec) -> st.SearchStrategy[Case]:
    """The spec's examples and Cases, each given one to three upstream layouts
    (cycled over its differentiable outputs); contiguous shrinks first."""
    cases = st.one_of(st.sampled_from(spec.examples), spec.cases) if spec.examples else spec.cases
    layouts = st.lists(st.sampled_from(UPSTREAM_LAYOUTS), min_size=1, max_size=3)
    return st.tuples(cases, layouts).map(
        lambda drawn: dataclasses.replace(drawn[0], upstream=tuple(drawn[1]))
    )
