//===- tensor_hash.cc -----------------------------------------------------===//
#include "quarry/field/tensor_hash.h"

#include "quarry/core/hash.h"

#include <bit>

namespace quarry {

uint64_t hash_tensor(const Tensor<Fp> &t) {
  uint64_t h = mix64(static_cast<uint64_t>(t.shape.rank()) + 0x7e);
  for (int64_t d : t.shape.dims)
    h = hash_combine(h, static_cast<uint64_t>(d));
  // Two multiply-rotate lanes over the elements (independent chains run in
  // parallel), then a full mix: this runs for every enumerated tensor.
  uint64_t a = h, b = ~h;
  const size_t n = t.data.size();
  size_t i = 0;
  for (; i + 1 < n; i += 2) {
    a = std::rotl((a ^ t.data[i].v) * 0x9e3779b97f4a7c15ULL, 29);
    b = std::rotl((b ^ t.data[i + 1].v) * 0xc2b2ae3d27d4eb4fULL, 31);
  }
  if (i < n)
    a = std::rotl((a ^ t.data[i].v) * 0x9e3779b97f4a7c15ULL, 29);
  return hash_combine(mix64(a), b);
}

uint64_t hash_tensors(std::span<const Tensor<Fp>> ts) {
  uint64_t h = mix64(ts.size());
  for (const auto &t : ts)
    h = hash_combine(h, hash_tensor(t));
  return h;
}

} // namespace quarry
