"""The pytest plugin that records every verdict."""
