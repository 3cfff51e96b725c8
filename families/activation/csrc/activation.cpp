// Gated activation on the CPU, shaped after vLLM's silu_and_mul: input is
// [..., 2 * d] (the gate and up projections side by side), and the op writes
// silu(gate) * up into a caller-given [..., d] result. The argument is named
// `result`, not `out`: Dynamo reads a keyword named `out` as an out= call.
#include <ATen/ATen.h>
#include <torch/library.h>

#include "rows.h"

#include <cmath>

namespace conformance {
namespace {

void silu_and_mul(at::Tensor& result, const at::Tensor& input) {
  TORCH_CHECK(input.dim() >= 1 && input.size(-1) % 2 == 0,
              "silu_and_mul: input must be [..., 2 * d], got ", input.sizes());
  const int64_t d = input.size(-1) / 2;
  auto expected = input.sizes().vec();
  expected.back() = d;
  TORCH_CHECK(result.sizes() == at::IntArrayRef(expected), "silu_and_mul: result must be ",
              at::IntArrayRef(expected), ", got ", result.sizes());
  TORCH_CHECK(result.scalar_type() == input.scalar_type(),
              "silu_and_mul: result and input must share a dtype");
  TORCH_CHECK((input.size(-1) <= 1 || input.stride(-1) == 1) && (d <= 1 || result.stride(-1) == 1),
              "silu_and_mul: the last dimensions must be contiguous");
  const int64_t rows = d == 0 ? 0 : result.numel() / d;
  AT_DISPATCH_FLOATING_TYPES_AND2(at::kBFloat16, at::kHalf, input.scalar_type(), "silu_and_mul",
                                  [&] {
    const scalar_t* src = input.data_ptr<scalar_t>();
    scalar_t* dst = result.data_ptr<scalar_t>();
    for (int64_t r = 0; r < rows; ++r) {
      const scalar_t* gate = src + row_offset(input, r);
      const scalar_t* up = gate + d;
      scalar_t* out = dst + row_offset(result, r);
      for (int64_t i = 0; i < d; ++i) {
        const float g = static_cast<float>(gate[i]);
        // silu rounded to the dtype, then the product, as vLLM's kernel.
        const scalar_t activated = static_cast<scalar_t>(g / (1.0f + std::exp(-g)));
        out[i] = static_cast<scalar_t>(static_cast<float>(activated) * static_cast<float>(up[i]));
      }
    }
  });
}

}  // namespace

TORCH_LIBRARY_FRAGMENT(conformance, m) {
  m.def("silu_and_mul(Tensor(a!) result, Tensor input) -> ()");
}

TORCH_LIBRARY_IMPL(conformance, CPU, m) {
  m.impl("silu_and_mul", &silu_and_mul);
}

}  // namespace conformance
