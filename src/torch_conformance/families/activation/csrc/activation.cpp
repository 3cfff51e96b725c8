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

// The functional form training code differentiates: a fresh contiguous result.
at::Tensor silu_and_mul_functional(const at::Tensor& input) {
  TORCH_CHECK(input.dim() >= 1 && input.size(-1) % 2 == 0,
              "silu_and_mul: input must be [..., 2 * d], got ", input.sizes());
  auto sizes = input.sizes().vec();
  sizes.back() /= 2;
  at::Tensor result = at::empty(sizes, input.options());
  silu_and_mul(result, input);
  return result;
}

// The gradient for input [..., 2 * d] given grad [..., d], as training
// kernels compute it, in float: with s = sigmoid(gate) and c = 1 - s,
//   grad_gate = grad * up * s * (1 + gate * c),   grad_up = grad * gate * s.
// s and c come from exp(-|gate|) so that each keeps its digits: 1 - s
// computed from s would lose them where s nears 1, and exp(-gate)
// overflows for very negative gates.
at::Tensor silu_and_mul_backward(const at::Tensor& grad, const at::Tensor& input) {
  TORCH_CHECK(input.dim() >= 1 && input.size(-1) % 2 == 0,
              "silu_and_mul_backward: input must be [..., 2 * d], got ", input.sizes());
  const int64_t d = input.size(-1) / 2;
  auto expected = input.sizes().vec();
  expected.back() = d;
  TORCH_CHECK(grad.sizes() == at::IntArrayRef(expected), "silu_and_mul_backward: grad must be ",
              at::IntArrayRef(expected), ", got ", grad.sizes());
  TORCH_CHECK(grad.scalar_type() == input.scalar_type(),
              "silu_and_mul_backward: grad and input must share a dtype");
  TORCH_CHECK((input.size(-1) <= 1 || input.stride(-1) == 1) && (d <= 1 || grad.stride(-1) == 1),
              "silu_and_mul_backward: the last dimensions must be contiguous");
  at::Tensor grad_input = at::empty(input.sizes(), input.options());
  const int64_t rows = d == 0 ? 0 : grad.numel() / d;
  AT_DISPATCH_FLOATING_TYPES_AND2(at::kBFloat16, at::kHalf, input.scalar_type(),
                                  "silu_and_mul_backward", [&] {
    scalar_t* dst = grad_input.data_ptr<scalar_t>();
    for (int64_t r = 0; r < rows; ++r) {
      const scalar_t* gate = input.data_ptr<scalar_t>() + row_offset(input, r);
      const scalar_t* up = gate + d;
      const scalar_t* g = grad.data_ptr<scalar_t>() + row_offset(grad, r);
      scalar_t* dgate = dst + r * 2 * d;
      for (int64_t i = 0; i < d; ++i) {
        const float x = static_cast<float>(gate[i]);
        const float e = std::exp(-std::abs(x));
        const float s = x >= 0.0f ? 1.0f / (1.0f + e) : e / (1.0f + e);
        const float c = x >= 0.0f ? e / (1.0f + e) : 1.0f / (1.0f + e);
        const float upstream = static_cast<float>(g[i]);
        dgate[i] = static_cast<scalar_t>(upstream * static_cast<float>(up[i]) * s * (1.0f + x * c));
        dgate[d + i] = static_cast<scalar_t>(upstream * x * s);
      }
    }
  });
  return grad_input;
}

}  // namespace

TORCH_LIBRARY_FRAGMENT(conformance, m) {
  m.def("silu_and_mul(Tensor(a!) result, Tensor input) -> ()");
  m.def("silu_and_mul_functional(Tensor input) -> Tensor");
  m.def("silu_and_mul_backward(Tensor grad, Tensor input) -> Tensor");
}

TORCH_LIBRARY_IMPL(conformance, CPU, m) {
  m.impl("silu_and_mul", &silu_and_mul);
  m.impl("silu_and_mul_functional", &silu_and_mul_functional);
  m.impl("silu_and_mul_backward", &silu_and_mul_backward);
}

}  // namespace conformance
