"""Standalone reproductions of the known compiler faults, one script each."""
