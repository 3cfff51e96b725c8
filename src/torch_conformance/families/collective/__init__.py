"""Collectives on one process: an all-gather whose output shape is configuration."""
