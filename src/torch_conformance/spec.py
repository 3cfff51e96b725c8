"""Public: the Spec a spec file declares, the programs it may name, and how
spec files load (see ``oracles.core.specification``, ``oracles.core.calls`` and
``oracles.runner.loading``)."""

from torch_conformance.oracles.core.calls import (
    call_op,
    positional_names,
    read,
    read_back,
    read_outputs,
    written_names,
)
from torch_conformance.oracles.core.specification import Spec, SpecError, Unavailable
from torch_conformance.oracles.runner.loading import load_specs, validate

__all__ = [
    "Spec",
    "SpecError",
    "Unavailable",
    "call_op",
    "load_specs",
    "positional_names",
    "read",
    "read_back",
    "read_outputs",
    "validate",
    "written_names",
]
