"""Public: the Spec a spec file declares, and the programs it may name
(see ``oracles.core.spec`` and ``oracles.core.calls``)."""

from oracles.core.calls import call_op, read_back
from oracles.core.spec import Spec, SpecError, Unavailable
from oracles.runner.loading import load_specs

__all__ = ["Spec", "SpecError", "Unavailable", "call_op", "load_specs", "read_back"]
