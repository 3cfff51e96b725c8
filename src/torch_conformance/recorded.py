"""Public: a spec of a recorded op, with its recorded Cases (see ``oracles.recording``)."""

from torch_conformance.oracles.recording.specs import recorded_spec

__all__ = ["recorded_spec"]
