"""The pytest plugin that records every verdict (``plugin``), the verdict
store that keeps a passing one between runs (``store``), and what reads the
records: coverage tables, matrices, diffs and orders.
"""
