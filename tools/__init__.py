"""The checkout's own tools, not installed: ``reference_pages`` writes the
reference pages' generated tables from what the code knows."""
