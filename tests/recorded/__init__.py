"""A model-like program for the record -> spec-less run test."""
