//===- float_ops/opaque.cc - opaque's output shapes -----------------------===//
#include "quarry/core/ops/opaque.h"

namespace quarry::ops {

std::vector<int64_t> Opaque::encode_shapes(const std::vector<Shape> &shapes) {
  std::vector<int64_t> out;
  for (const Shape &s : shapes) {
    out.push_back(s.rank());
    out.insert(out.end(), s.dims.begin(), s.dims.end());
  }
  return out;
}

MaybeTypes Opaque::infer(const Attrs &a, InTypes) {
  const std::vector<int64_t> &flat = a.list(kShapes);
  const size_t outputs = a.list(kTypes).size();
  if (outputs == 0)
    fail(name, "types must list at least one output");
  Types out;
  size_t at = 0;
  while (at < flat.size()) {
    const int64_t rank = flat[at++];
    if (rank < 0 || static_cast<size_t>(rank) > flat.size() - at)
      fail(name, "shapes ends inside a shape (rank ", rank, ")");
    Shape s;
    for (int64_t k = 0; k < rank; ++k) {
      if (flat[at] < 0)
        fail(name, "dimension ", flat[at], " is negative");
      s.dims.push_back(flat[at++]);
    }
    out.emplace_back(std::move(s));
  }
  if (out.size() != outputs)
    fail(name, "shapes lists ", out.size(), " outputs and types ", outputs);
  return out;
}

} // namespace quarry::ops
