// The bug zoo: rotary-embedding ops that each break one rule a compiled
// program relies on. They share the reference rotation, so every finding the
// suite reports on them comes from the contract, not from the arithmetic.
#include <cstdlib>

#include "rope.h"

namespace conformance {
namespace {

// The serving-framework op of the fused-QKV stride bug: 3-D inputs get fresh
// outputs, 2-D and 4-D inputs are rotated in place and returned as they are,
// while the schema declares no aliasing and no write.
std::tuple<at::Tensor, at::Tensor> returns_inputs(
    const at::Tensor& positions, const at::Tensor& query, const at::Tensor& key,
    int64_t head_size, const at::Tensor& cos_sin_cache, bool is_neox) {
  if (query.dim() == 3) {
    return rotate_copy(positions, query, key, head_size, cos_sin_cache,
                       is_neox);
  }
  at::Tensor q = query;
  at::Tensor k = key;
  rotate_in_place(positions, q, k, head_size, cos_sin_cache, is_neox);
  return {query, key};
}

// Rotates in place under a schema that declares no write.
void undeclared_write(const at::Tensor& positions, const at::Tensor& query,
                      const at::Tensor& key, int64_t head_size,
                      const at::Tensor& cos_sin_cache, bool is_neox) {
  at::Tensor q = query;
  at::Tensor k = key;
  rotate_in_place(positions, q, k, head_size, cos_sin_cache, is_neox);
}

// Writes one column past every key row: into the value part of a fused QKV
// buffer, or into whatever lies next to the slice.
void overrun(const at::Tensor& positions, at::Tensor& query, at::Tensor& key,
             int64_t head_size, const at::Tensor& cos_sin_cache,
             bool is_neox) {
  rotate_in_place(positions, query, key, head_size, cos_sin_cache, is_neox, 1);
}

// Kills the process on some shapes, as a CPU kernel built for AVX2 did: an
// aligned vector store of bf16 neox input at a 2-byte-aligned address
// whenever rotary_dim / 2 is not a multiple of 8.
void aborts(const at::Tensor& positions, at::Tensor& query, at::Tensor& key,
            int64_t head_size, const at::Tensor& cos_sin_cache, bool is_neox) {
  const int64_t half = cos_sin_cache.size(-1) / 2;
  if (query.scalar_type() == at::kBFloat16 && is_neox && half % 8 != 0) {
    std::abort();
  }
  rotate_in_place(positions, query, key, head_size, cos_sin_cache, is_neox);
}

// Right inside its declared domain (1-D positions, contiguous), silently
// wrong outside it: it reads positions as if they were contiguous.
void ignores_position_strides(const at::Tensor& positions, at::Tensor& query,
                              at::Tensor& key, int64_t head_size,
                              const at::Tensor& cos_sin_cache, bool is_neox) {
  const at::Tensor assumed = positions.as_strided({positions.numel()}, {1});
  rotate_in_place(assumed, query, key, head_size, cos_sin_cache, is_neox);
}

}  // namespace

TORCH_LIBRARY(conformance_zoo, m) {
  m.def(
      "rotary_embedding_cpu(Tensor positions, Tensor query, Tensor key, "
      "int head_size, Tensor cos_sin_cache, bool is_neox) -> (Tensor, Tensor)");
  m.def(
      "rotary_embedding_undeclared_write(Tensor positions, Tensor query, "
      "Tensor key, int head_size, Tensor cos_sin_cache, bool is_neox) -> ()");
  m.def(
      "rotary_embedding_no_fake(Tensor positions, Tensor query, Tensor key, "
      "int head_size, Tensor cos_sin_cache, bool is_neox) -> (Tensor, Tensor)");
  m.def(
      "rotary_embedding_overrun(Tensor positions, Tensor(a!) query, "
      "Tensor(b!) key, int head_size, Tensor cos_sin_cache, bool is_neox) "
      "-> ()");
  m.def(
      "rotary_embedding_contiguous_positions(Tensor positions, "
      "Tensor(a!) query, Tensor(b!) key, int head_size, Tensor cos_sin_cache, "
      "bool is_neox) -> ()");
  m.def(
      "rotary_embedding_aborts(Tensor positions, Tensor(a!) query, "
      "Tensor(b!) key, int head_size, Tensor cos_sin_cache, bool is_neox) "
      "-> ()");
}

TORCH_LIBRARY_IMPL(conformance_zoo, CPU, m) {
  m.impl("rotary_embedding_cpu", &returns_inputs);
  m.impl("rotary_embedding_undeclared_write", &undeclared_write);
  m.impl("rotary_embedding_no_fake", &rotate_copy);
  m.impl("rotary_embedding_overrun", &overrun);
  m.impl("rotary_embedding_aborts", &aborts);
  m.impl("rotary_embedding_contiguous_positions", &ignores_position_strides);
}

}  // namespace conformance
