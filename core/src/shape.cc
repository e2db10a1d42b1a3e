//===- shape.cc -----------------------------------------------------------===//
#include "quarry/core/shape.h"

#include "quarry/core/error.h"

namespace quarry {

namespace {

/// a * b, or an error naming the shape when a 64-bit count cannot hold it
/// (a file can state any dimensions).
int64_t times(int64_t a, int64_t b, const Shape &s) {
  int64_t product;
  if (__builtin_mul_overflow(a, b, &product))
    throw Error("shape " + s.str() +
                ": more elements than a 64-bit count holds");
  return product;
}

} // namespace

int64_t Shape::numel() const {
  int64_t n = 1;
  for (int64_t d : dims)
    n = times(n, d, *this);
  return n;
}

std::vector<int64_t> Shape::strides() const {
  std::vector<int64_t> s(dims.size(), 1);
  for (int i = rank() - 2; i >= 0; --i)
    s[i] = times(s[i + 1], dims[i + 1], *this);
  return s;
}

std::string Shape::str() const {
  std::string s = "[";
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i)
      s += ",";
    s += std::to_string(dims[i]);
  }
  return s + "]";
}

bool same_splits(const SplitRef &a, const SplitRef &b) {
  if (a == b)
    return true;
  if (!a || !b)
    return false;
  return a->left == b->left && same_splits(a->lhs, b->lhs) &&
         same_splits(a->rhs, b->rhs);
}

const SplitRef &TensorType::split(int axis) const {
  static const SplitRef none;
  return axis < static_cast<int>(splits.size()) ? splits[axis] : none;
}

void TensorType::set_split(int axis, SplitRef tree) {
  if (!tree && axis >= static_cast<int>(splits.size()))
    return;
  if (splits.size() < static_cast<size_t>(rank()))
    splits.resize(rank());
  splits[axis] = std::move(tree);
}

} // namespace quarry
