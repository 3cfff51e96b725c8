"""A team's own test of its model, run under the recorder as
``python -m torch_conformance.suites.record ... -- pytest tests/recorded/uses_ops.py``."""

from tests.recorded import decoder


def test_the_decoder_runs():
    decoder.main()
