// RMS normalization on the CPU, shaped after the serving frameworks' kernels:
// rms_norm returns a fresh output; fused_add_rms_norm adds the residual in
// place (residual = input + residual) and normalizes that sum into input.
// rms_norm_backward is rms_norm's gradient, as training kernels compute it.
// Rows are [..., hidden] views with a contiguous last dimension; the sum of
// squares accumulates in float, as the GPU kernels' do.
#include <ATen/ATen.h>
#include <torch/library.h>

#include "rows.h"

#include <cmath>
#include <tuple>
#include <vector>

namespace conformance {
namespace {

int64_t check_rows(const at::Tensor& x, const char* name, const at::Tensor& weight) {
  TORCH_CHECK(x.dim() >= 1, "rms_norm: ", name, " must have a hidden dimension");
  TORCH_CHECK(x.size(-1) <= 1 || x.stride(-1) == 1, "rms_norm: the last dimension of ",
              name, " must be contiguous, got strides ", x.strides());
  TORCH_CHECK(weight.dim() == 1 && weight.size(0) == x.size(-1), "rms_norm: weight must be [",
              x.size(-1), "], got ", weight.sizes());
  TORCH_CHECK(x.scalar_type() == weight.scalar_type(), "rms_norm: ", name,
              " and weight must share a dtype, got ", x.scalar_type(), " and ",
              weight.scalar_type());
  return x.numel() / std::max<int64_t>(x.size(-1), 1);
}

float inverse_rms(float sum_of_squares, int64_t hidden, double epsilon) {
  return 1.0f / std::sqrt(sum_of_squares / static_cast<float>(hidden) +
                          static_cast<float>(epsilon));
}

// dst[i] = (src[i] * inv rounded to the dtype) * weight[i], as vLLM's kernel.
template <typename scalar_t>
void normalize(const scalar_t* src, scalar_t* dst, const at::Tensor& weight, float inv) {
  const scalar_t* w = weight.data_ptr<scalar_t>();
  for (int64_t i = 0; i < weight.size(0); ++i) {
    const scalar_t scaled = static_cast<scalar_t>(static_cast<float>(src[i]) * inv);
    dst[i] = static_cast<scalar_t>(static_cast<float>(scaled) *
                                   static_cast<float>(w[i * weight.stride(0)]));
  }
}

at::Tensor rms_norm(const at::Tensor& input, const at::Tensor& weight, double epsilon) {
  const int64_t rows = check_rows(input, "input", weight);
  const int64_t hidden = input.size(-1);
  at::Tensor out = at::empty(input.sizes(), input.options());
  AT_DISPATCH_FLOATING_TYPES_AND2(at::kBFloat16, at::kHalf, input.scalar_type(), "rms_norm", [&] {
    const scalar_t* src = input.data_ptr<scalar_t>();
    scalar_t* dst = out.data_ptr<scalar_t>();
    for (int64_t r = 0; r < rows; ++r) {
      const scalar_t* row = src + row_offset(input, r);
      float sum = 0.0f;
      for (int64_t i = 0; i < hidden; ++i) {
        const float v = static_cast<float>(row[i]);
        sum += v * v;
      }
      normalize(row, dst + r * hidden, weight, inverse_rms(sum, hidden, epsilon));
    }
  });
  return out;
}

// With inv = 1 / rms(x) and s = sum(g * w * x) over the row:
//   grad_input = inv * (g * w - x * inv^2 * s / hidden),
//   grad_weight = sum over rows of g * x * inv,
// every sum accumulated in float; grad (the upstream gradient) in rows like input's.
std::tuple<at::Tensor, at::Tensor> rms_norm_backward(const at::Tensor& grad,
                                                     const at::Tensor& input,
                                                     const at::Tensor& weight, double epsilon) {
  const int64_t rows = check_rows(input, "input", weight);
  check_rows(grad, "grad", weight);
  TORCH_CHECK(grad.sizes() == input.sizes(), "rms_norm_backward: grad ", grad.sizes(),
              " and input ", input.sizes(), " differ in shape");
  const int64_t hidden = input.size(-1);
  at::Tensor grad_input = at::empty(input.sizes(), input.options());
  std::vector<float> grad_weight(hidden, 0.0f);
  AT_DISPATCH_FLOATING_TYPES_AND2(
      at::kBFloat16, at::kHalf, input.scalar_type(), "rms_norm_backward", [&] {
        const scalar_t* w = weight.data_ptr<scalar_t>();
        const int64_t w_stride = weight.stride(0);
        scalar_t* dx = grad_input.data_ptr<scalar_t>();
        for (int64_t r = 0; r < rows; ++r) {
          const scalar_t* x = input.data_ptr<scalar_t>() + row_offset(input, r);
          const scalar_t* g = grad.data_ptr<scalar_t>() + row_offset(grad, r);
          float squares = 0.0f;
          float s = 0.0f;
          for (int64_t i = 0; i < hidden; ++i) {
            const float v = static_cast<float>(x[i]);
            squares += v * v;
            s += static_cast<float>(g[i]) * static_cast<float>(w[i * w_stride]) * v;
          }
          const float inv = inverse_rms(squares, hidden, epsilon);
          const float coefficient = s * inv * inv / static_cast<float>(hidden);
          for (int64_t i = 0; i < hidden; ++i) {
            const float v = static_cast<float>(x[i]);
            const float gw = static_cast<float>(g[i]) * static_cast<float>(w[i * w_stride]);
            dx[r * hidden + i] = static_cast<scalar_t>((gw - v * coefficient) * inv);
            grad_weight[i] += static_cast<float>(g[i]) * v * inv;
          }
        }
      });
  at::Tensor weight_grad =
      at::from_blob(grad_weight.data(), {hidden}, at::TensorOptions().dtype(at::kFloat))
          .to(weight.scalar_type(), /*non_blocking=*/false, /*copy=*/true);
  return {grad_input, weight_grad};
}

void fused_add_rms_norm(at::Tensor& input, at::Tensor& residual, const at::Tensor& weight,
                        double epsilon) {
  const int64_t rows = check_rows(input, "input", weight);
  check_rows(residual, "residual", weight);
  TORCH_CHECK(input.sizes() == residual.sizes(), "fused_add_rms_norm: input ", input.sizes(),
              " and residual ", residual.sizes(), " differ in shape");
  const int64_t hidden = input.size(-1);
  AT_DISPATCH_FLOATING_TYPES_AND2(
      at::kBFloat16, at::kHalf, input.scalar_type(), "fused_add_rms_norm", [&] {
        scalar_t* in = input.data_ptr<scalar_t>();
        scalar_t* res = residual.data_ptr<scalar_t>();
        for (int64_t r = 0; r < rows; ++r) {
          scalar_t* x = in + row_offset(input, r);
          scalar_t* z = res + row_offset(residual, r);
          float sum = 0.0f;
          for (int64_t i = 0; i < hidden; ++i) {
            const float v = static_cast<float>(x[i]) + static_cast<float>(z[i]);
            sum += v * v;
            z[i] = static_cast<scalar_t>(v);
          }
          normalize(z, x, weight, inverse_rms(sum, hidden, epsilon));
        }
      });
}

// The zoo's functional forms: fresh (normalized, sum) and statistics.
std::tuple<at::Tensor, at::Tensor> add_rms_norm(const at::Tensor& input,
                                                const at::Tensor& residual,
                                                const at::Tensor& weight, double epsilon) {
  at::Tensor out = input.clone(at::MemoryFormat::Contiguous);
  at::Tensor sum = residual.clone(at::MemoryFormat::Contiguous);
  fused_add_rms_norm(out, sum, weight, epsilon);
  return {out, sum};
}

std::tuple<at::Tensor, at::Tensor, at::Tensor, at::Tensor> add_rms_norm_stats(
    const at::Tensor& input, const at::Tensor& residual, const at::Tensor& weight,
    double epsilon) {
  auto [out, sum] = add_rms_norm(input, residual, weight, epsilon);
  at::Tensor mean_square = sum.to(at::kFloat).square().mean(-1, /*keepdim=*/true);
  return {out, sum, mean_square, (mean_square + epsilon).rsqrt()};
}

// Returns the tensors it wrote, under a schema that says so.
std::tuple<at::Tensor, at::Tensor> fused_add_rms_norm_returning(at::Tensor& input,
                                                                at::Tensor& residual,
                                                                const at::Tensor& weight,
                                                                double epsilon) {
  fused_add_rms_norm(input, residual, weight, epsilon);
  return {input, residual};
}

}  // namespace

TORCH_LIBRARY_FRAGMENT(conformance, m) {
  m.def("rms_norm(Tensor input, Tensor weight, float epsilon) -> Tensor");
  m.def(
      "rms_norm_backward(Tensor grad, Tensor input, Tensor weight, float epsilon) -> "
      "(Tensor, Tensor)");
  m.def(
      "fused_add_rms_norm(Tensor(a!) input, Tensor(b!) residual, Tensor weight, "
      "float epsilon) -> ()");
}

TORCH_LIBRARY_IMPL(conformance, CPU, m) {
  m.impl("rms_norm", &rms_norm);
  m.impl("rms_norm_backward", &rms_norm_backward);
  m.impl("fused_add_rms_norm", &fused_add_rms_norm);
}

// The zoo: right kernels whose fakes (families/norm/zoo.py) are wrong.
TORCH_LIBRARY_FRAGMENT(conformance_zoo, m) {
  m.def(
      "add_rms_norm_returns_none(Tensor input, Tensor residual, Tensor weight, "
      "float epsilon) -> (Tensor, Tensor)");
  m.def(
      "add_rms_norm_returns_one(Tensor input, Tensor residual, Tensor weight, "
      "float epsilon) -> (Tensor, Tensor)");
  m.def(
      "add_rms_norm_stats_returns_three(Tensor input, Tensor residual, Tensor weight, "
      "float epsilon) -> (Tensor, Tensor, Tensor, Tensor)");
  m.def(
      "fused_add_rms_norm_fresh_residual(Tensor(a!) input, Tensor(b!) residual, "
      "Tensor weight, float epsilon) -> (Tensor(a!), Tensor(b!))");
}

TORCH_LIBRARY_IMPL(conformance_zoo, CPU, m) {
  m.impl("add_rms_norm_returns_none", &add_rms_norm);
  m.impl("add_rms_norm_returns_one", &add_rms_norm);
  m.impl("add_rms_norm_stats_returns_three", &add_rms_norm_stats);
  m.impl("fused_add_rms_norm_fresh_residual", &fused_add_rms_norm_returning);
}

}  // namespace conformance
