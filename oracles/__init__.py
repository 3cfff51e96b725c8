"""Cases, modes, observations and verdicts: how the suite judges an op."""
