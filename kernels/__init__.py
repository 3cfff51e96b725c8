"""Reference kernels, their registrations and fakes, and the bug zoo."""
