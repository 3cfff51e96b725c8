"""Hypothesis strategies of what the checks judge.

``strided`` (strided views of a larger buffer), ``hidden_rows`` (rows of a
hidden dimension), ``batches`` (Cases that share a Signature),
``tangents`` (the backward checks' Cases, with their upstream gradients'
layouts), ``programs`` (the program drawn around an op) and
``legality`` (what makes it legal), ``shrink`` (a failing program cut to
its fewest Steps), ``sampling`` (fixed samples outside a property).
"""
