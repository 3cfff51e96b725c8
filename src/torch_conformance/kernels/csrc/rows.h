// Rows of a [..., hidden] view whose last dimension is contiguous: the
// offset of a row in elements, leading dimensions permuted or padded.
#pragma once

#include <ATen/ATen.h>

namespace conformance {

inline int64_t row_offset(const at::Tensor& x, int64_t row) {
  int64_t offset = 0;
  for (int64_t d = x.dim() - 2; d >= 0; --d) {
    offset += (row % x.size(d)) * x.stride(d);
    row /= x.size(d);
  }
  return offset;
}

}  // namespace conformance
