//===- shape.h - Tensor shapes and the concat boundaries they carry -*- C++
//-*-===//
//
// A TensorType is a shape plus, per axis, the tree of concat boundaries that
// produced the tensor (TASO's "split tree"): split without explicit sizes
// undoes the most recent concat on that axis. Element type is float32 for now.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace quarry {

/// Dimensions, outermost first (row-major). Rank 0 is a scalar.
struct Shape {
  std::vector<int64_t> dims;

  Shape() = default;
  Shape(std::initializer_list<int64_t> d) : dims(d) {}
  explicit Shape(std::vector<int64_t> d) : dims(std::move(d)) {}

  int rank() const { return static_cast<int>(dims.size()); }
  int64_t operator[](int axis) const { return dims[axis]; }
  int64_t &operator[](int axis) { return dims[axis]; }
  /// Number of elements (1 for a scalar).
  int64_t numel() const;
  /// Row-major stride of each axis, in elements.
  std::vector<int64_t> strides() const;
  /// "[2,4,5,5]"; "[]" for a scalar.
  std::string str() const;

  friend bool operator==(const Shape &, const Shape &) = default;
};

/// One concat boundary on an axis: the first `left` elements came from one
/// operand (with its own boundaries in `lhs`), the rest from the other.
/// Concats of more than two operands nest to the left:
/// concat(a, b, c) records ((a | b) | c).
struct SplitTree {
  int64_t left = 0;
  std::shared_ptr<const SplitTree> lhs, rhs;
};
using SplitRef = std::shared_ptr<const SplitTree>;

/// Deep equality; two null trees are equal.
bool same_splits(const SplitRef &a, const SplitRef &b);

/// A tensor's static type: its shape and the concat boundaries per axis.
struct TensorType {
  Shape shape;
  /// Empty, or one entry per axis; a null entry means no recorded boundary.
  std::vector<SplitRef> splits;

  TensorType() = default;
  explicit TensorType(Shape s) : shape(std::move(s)) {}

  int rank() const { return shape.rank(); }
  const SplitRef &split(int axis) const;
  void set_split(int axis, SplitRef tree);
};

} // namespace quarry
