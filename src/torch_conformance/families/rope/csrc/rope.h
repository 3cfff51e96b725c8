// Rotary position embedding on the CPU, shaped after the serving-framework
// kernels this suite models: query and key are 2-D [T, H*D], 3-D [T, H, D] or
// 4-D [B, S, H, D] views with any token and head strides and a contiguous last
// dimension, so column slices of a fused QKV buffer are valid inputs.
#pragma once

#include <ATen/ATen.h>
#include <torch/library.h>

namespace conformance {

// Rotates query and key in place. `overrun` > 0 makes the kernel also write
// that many elements past the last head of every key row: the zoo's
// out-of-slice write. Reference kernels pass 0.
void rotate_in_place(const at::Tensor& positions, at::Tensor& query,
                     at::Tensor& key, int64_t head_size,
                     const at::Tensor& cos_sin_cache, bool is_neox,
                     int64_t overrun = 0);

// Fresh contiguous tensors holding the rotated query and key.
std::tuple<at::Tensor, at::Tensor> rotate_copy(const at::Tensor& positions,
                                               const at::Tensor& query,
                                               const at::Tensor& key,
                                               int64_t head_size,
                                               const at::Tensor& cos_sin_cache,
                                               bool is_neox);

}  // namespace conformance
