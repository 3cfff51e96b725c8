"""The backward checks' Cases: the spec's, each with the layouts of the
upstream gradients its backward receives (``Case.tangents``)."""

from __future__ import annotations

import dataclasses

from hypothesis import strategies as st

from torch_conformance.oracles.core.buffers import Case
from torch_conformance.oracles.core.gradients import CONTIGUOUS, TANGENT_LAYOUTS
from torch_conformance.oracles.core.specification import Spec


def tangent_layouts() -> st.SearchStrategy[tuple[str, ...]]:
    """One to three upstream layouts, cycled over a program's differentiable
    outputs; contiguous shrinks first."""
    return st.lists(st.sampled_from(TANGENT_LAYOUTS), min_size=1, max_size=3).map(tuple)


def tangent_cases(spec: Spec) -> st.SearchStrategy[Case]:
    """The spec's Cases, each given ``tangent_layouts``."""
    return st.tuples(spec.cases, tangent_layouts()).map(
        lambda drawn: dataclasses.replace(drawn[0], tangents=tuple(drawn[1]))
    )


def tangent_examples(spec: Spec) -> tuple[Case, ...]:
    """The spec's examples, run first, each with the upstream layouts in turn
    over its outputs, strided first (every rank has one): a model's own Case,
    given the gradients a backward may pass it rather than those a test does."""
    return tuple(dataclasses.replace(case, tangents=_EXAMPLE_LAYOUTS) for case in spec.examples)


_EXAMPLE_LAYOUTS = ("strided", "transposed", "expanded", CONTIGUOUS)
