#include "rope.h"

namespace conformance {
namespace {

// A view of query or key as a grid of tokens (outer x inner: T x 1, or B x S)
// holding num_heads heads of head_size contiguous elements each.
struct Heads {
  int64_t outer, inner;
  int64_t outer_stride, inner_stride;
  int64_t num_heads, head_stride, head_size;
};

Heads heads_of(const at::Tensor& x, const char* name, int64_t head_size) {
  TORCH_CHECK(x.dim() >= 2 && x.dim() <= 4, "rotary_embedding: ", name,
              " must be 2-D [T, H*D], 3-D [T, H, D] or 4-D [B, S, H, D], got ",
              x.sizes());
  TORCH_CHECK(x.stride(-1) == 1, "rotary_embedding: the last dimension of ",
              name, " must be contiguous, got strides ", x.strides());
  switch (x.dim()) {
    case 2:
      TORCH_CHECK(x.size(1) % head_size == 0, "rotary_embedding: ", name,
                  " width ", x.size(1), " is not a multiple of head_size ",
                  head_size);
      return {x.size(0), 1, x.stride(0), 0, x.size(1) / head_size, head_size,
              head_size};
    case 3:
      TORCH_CHECK(x.size(2) == head_size, "rotary_embedding: ", name,
                  " head dimension ", x.size(2), " != head_size ", head_size);
      return {x.size(0), 1, x.stride(0), 0, x.size(1), x.stride(1), head_size};
    default:
      TORCH_CHECK(x.size(3) == head_size, "rotary_embedding: ", name,
                  " head dimension ", x.size(3), " != head_size ", head_size);
      return {x.size(0), x.size(1), x.stride(0), x.stride(1), x.size(2),
              x.stride(2), head_size};
  }
}

struct Rotation {
  const int64_t* positions;
  int64_t pos_outer_stride, pos_inner_stride;
  int64_t rot_dim, cache_rows, cache_row_stride, cache_col_stride;
  bool is_neox;
};

Rotation rotation_of(const at::Tensor& positions, const Heads& q,
                     int64_t head_size, const at::Tensor& cache, bool is_neox) {
  TORCH_CHECK(positions.scalar_type() == at::kLong,
              "rotary_embedding: positions must be int64, got ",
              positions.scalar_type());
  TORCH_CHECK(positions.numel() == q.outer * q.inner,
              "rotary_embedding: ", positions.numel(), " positions for ",
              q.outer * q.inner, " tokens");
  TORCH_CHECK(positions.dim() == 1 || positions.dim() == 2,
              "rotary_embedding: positions must be [T] or [B, S], got ",
              positions.sizes());
  TORCH_CHECK(cache.dim() == 2, "rotary_embedding: cos_sin_cache must be ",
              "[max_position, rotary_dim], got ", cache.sizes());
  const int64_t rot_dim = cache.size(1);
  TORCH_CHECK(rot_dim % 2 == 0 && rot_dim <= head_size,
              "rotary_embedding: rotary_dim ", rot_dim,
              " must be even and at most head_size ", head_size);
  const bool grid = positions.dim() == 2;
  return {positions.data_ptr<int64_t>(),
          positions.stride(0),
          grid ? positions.stride(1) : 0,
          rot_dim,
          cache.size(0),
          cache.stride(0),
          cache.stride(1),
          is_neox};
}

template <typename scalar_t>
void rotate_heads(scalar_t* data, const Heads& h, const Rotation& r,
                  const scalar_t* cache, int64_t overrun, int64_t room) {
  const int64_t half = r.rot_dim / 2;
  for (int64_t o = 0; o < h.outer; ++o) {
    for (int64_t i = 0; i < h.inner; ++i) {
      const int64_t pos =
          r.positions[o * r.pos_outer_stride + i * r.pos_inner_stride];
      TORCH_CHECK(pos >= 0 && pos < r.cache_rows, "rotary_embedding: position ",
                  pos, " outside the cos_sin_cache of ", r.cache_rows, " rows");
      const scalar_t* cos = cache + pos * r.cache_row_stride;
      const scalar_t* sin = cos + half * r.cache_col_stride;
      const int64_t token = o * h.outer_stride + i * h.inner_stride;
      for (int64_t head = 0; head < h.num_heads; ++head) {
        scalar_t* x = data + token + head * h.head_stride;
        for (int64_t j = 0; j < half; ++j) {
          const int64_t a = r.is_neox ? j : 2 * j;
          const int64_t b = r.is_neox ? j + half : 2 * j + 1;
          const float c = static_cast<float>(cos[j * r.cache_col_stride]);
          const float s = static_cast<float>(sin[j * r.cache_col_stride]);
          const float xa = static_cast<float>(x[a]);
          const float xb = static_cast<float>(x[b]);
          x[a] = static_cast<scalar_t>(xa * c - xb * s);
          x[b] = static_cast<scalar_t>(xb * c + xa * s);
        }
      }
      // The zoo's off-by-`overrun` loop bound: it copies the last element of
      // the last head onward past the slice, wherever the storage has room.
      const int64_t end = token + (h.num_heads - 1) * h.head_stride + h.head_size;
      for (int64_t k = 0; k < overrun && end + k < room; ++k) {
        data[end + k] = data[end - 1];
      }
    }
  }
}

void rotate_one(const Rotation& r, at::Tensor& x, const char* name,
                int64_t head_size, const at::Tensor& cache, int64_t overrun) {
  const Heads h = heads_of(x, name, head_size);
  const int64_t room =
      static_cast<int64_t>(x.storage().nbytes() / x.element_size()) -
      x.storage_offset();
  AT_DISPATCH_FLOATING_TYPES_AND2(
      at::kBFloat16, at::kHalf, x.scalar_type(), "rotary_embedding", [&] {
        rotate_heads<scalar_t>(x.data_ptr<scalar_t>(), h, r,
                               cache.data_ptr<scalar_t>(), overrun, room);
      });
}

}  // namespace

void rotate_in_place(const at::Tensor& positions, at::Tensor& query,
                     at::Tensor& key, int64_t head_size,
                     const at::Tensor& cos_sin_cache, bool is_neox,
                     int64_t overrun) {
  TORCH_CHECK(query.dim() == key.dim(), "rotary_embedding: query is ",
              query.dim(), "-D but key is ", key.dim(), "-D");
  TORCH_CHECK(query.scalar_type() == key.scalar_type() &&
                  query.scalar_type() == cos_sin_cache.scalar_type(),
              "rotary_embedding: query, key and cos_sin_cache must share a ",
              "dtype, got ", query.scalar_type(), ", ", key.scalar_type(),
              ", ", cos_sin_cache.scalar_type());
  const Heads q = heads_of(query, "query", head_size);
  const Heads k = heads_of(key, "key", head_size);
  TORCH_CHECK(q.outer == k.outer && q.inner == k.inner,
              "rotary_embedding: query and key hold different token counts");
  const Rotation r =
      rotation_of(positions, q, head_size, cos_sin_cache, is_neox);
  rotate_one(r, query, "query", head_size, cos_sin_cache, 0);
  rotate_one(r, key, "key", head_size, cos_sin_cache, overrun);
}

std::tuple<at::Tensor, at::Tensor> rotate_copy(const at::Tensor& positions,
                                               const at::Tensor& query,
                                               const at::Tensor& key,
                                               int64_t head_size,
                                               const at::Tensor& cos_sin_cache,
                                               bool is_neox) {
  at::Tensor q = query.clone(at::MemoryFormat::Contiguous);
  at::Tensor k = key.clone(at::MemoryFormat::Contiguous);
  rotate_in_place(positions, q, k, head_size, cos_sin_cache, is_neox);
  return {q, k};
}

namespace {

// Like the serving frameworks' kernels, key is optional: without it only
// query is rotated.
void rotary_embedding(const at::Tensor& positions, at::Tensor& query,
                      const std::optional<at::Tensor>& key, int64_t head_size,
                      const at::Tensor& cos_sin_cache, bool is_neox) {
  if (key.has_value()) {
    at::Tensor k = *key;
    rotate_in_place(positions, query, k, head_size, cos_sin_cache, is_neox);
    return;
  }
  TORCH_CHECK(query.scalar_type() == cos_sin_cache.scalar_type(),
              "rotary_embedding: query and cos_sin_cache must share a dtype, "
              "got ", query.scalar_type(), ", ", cos_sin_cache.scalar_type());
  const Heads q = heads_of(query, "query", head_size);
  const Rotation r =
      rotation_of(positions, q, head_size, cos_sin_cache, is_neox);
  rotate_one(r, query, "query", head_size, cos_sin_cache, 0);
}

}  // namespace

TORCH_LIBRARY(conformance, m) {
  m.def(
      "rotary_embedding(Tensor positions, Tensor(a!) query, Tensor(b!)? key, "
      "int head_size, Tensor cos_sin_cache, bool is_neox) -> ()");
  m.def(
      "rotary_embedding_functional(Tensor positions, Tensor query, "
      "Tensor key, int head_size, Tensor cos_sin_cache, bool is_neox) "
      "-> (Tensor, Tensor)");
}

TORCH_LIBRARY_IMPL(conformance, CPU, m) {
  m.impl("rotary_embedding", &rotary_embedding);
  m.impl("rotary_embedding_functional", &rotate_copy);
}

}  // namespace conformance
