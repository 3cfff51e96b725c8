// An all-gather on one process, shaped after a serving stack's shared-memory
// all-gather: the output is every rank's x concatenated along `dim`, and on
// one process every rank holds the same x, so it is cat([x] * tp_size, dim).
// The group size is configuration, not an argument: the kernel reads
// CONFORMANCE_TP_SIZE (default 1), and a fake must read the same.
#include <ATen/ATen.h>
#include <torch/library.h>

#include <cstdlib>
#include <string>

namespace conformance {
namespace {

int64_t tp_size() {
  const char* value = std::getenv("CONFORMANCE_TP_SIZE");
  if (value == nullptr || *value == '\0') {
    return 1;
  }
  const int64_t size = std::stoll(value);
  TORCH_CHECK(size >= 1, "all_gather: CONFORMANCE_TP_SIZE must be >= 1, got ", value);
  return size;
}

at::Tensor all_gather(const at::Tensor& x, int64_t dim) {
  TORCH_CHECK(x.dim() >= 1, "all_gather: x must have a dimension to gather along");
  dim = at::maybe_wrap_dim(dim, x.dim());
  const int64_t ranks = tp_size();
  auto shape = x.sizes().vec();
  shape[dim] *= ranks;
  at::Tensor out = at::empty(shape, x.options());
  for (int64_t rank = 0; rank < ranks; ++rank) {
    out.narrow(dim, rank * x.size(dim), x.size(dim)).copy_(x);
  }
  return out;
}

}  // namespace

TORCH_LIBRARY_FRAGMENT(conformance, m) {
  m.def("all_gather(Tensor x, int dim) -> Tensor");
}

TORCH_LIBRARY_IMPL(conformance, CPU, m) {
  m.impl("all_gather", &all_gather);
}

// The zoo's copy: its fake reads the wrong configuration (families/collective/zoo.py).
TORCH_LIBRARY_FRAGMENT(conformance_zoo, m) {
  m.def("all_gather_world_size(Tensor x, int dim) -> Tensor");
}

TORCH_LIBRARY_IMPL(conformance_zoo, CPU, m) {
  m.impl("all_gather_world_size", &all_gather);
}

}  // namespace conformance
