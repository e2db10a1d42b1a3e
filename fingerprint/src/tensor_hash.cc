//===- tensor_hash.cc -----------------------------------------------------===//
#include "quarry/fingerprint/tensor_hash.h"

#include "quarry/core/hash.h"

namespace quarry {

uint64_t hash_tensor(const Tensor<Fp> &t) {
  uint64_t h = mix64(static_cast<uint64_t>(t.shape.rank()) + 0x7e);
  for (int64_t d : t.shape.dims)
    h = hash_combine(h, static_cast<uint64_t>(d));
  for (const Fp &x : t.data)
    h = hash_combine(h, x.v);
  return h;
}

uint64_t hash_tensors(std::span<const Tensor<Fp>> ts) {
  uint64_t h = mix64(ts.size());
  for (const auto &t : ts)
    h = hash_combine(h, hash_tensor(t));
  return h;
}

} // namespace quarry
