"""What the families' reference kernels share: the C++ build, Triton's
interpreter where no GPU runs Triton, and the row walk of both kernels' kinds."""
