//===- onnx_constants.h - The constants import knows by name ----*- C++ -*-===//
//
// Import folds what it can, so it keeps every constant (initializers,
// Constant nodes, folded results) by its ONNX name. A decoded Constant
// holds a double and an int64 per value, five times a float32 weight: an
// initializer is therefore decoded only when a node reads it as a
// constant (a shape, a folded operand), and one that only becomes a weight
// goes from its TensorProto to float32 directly.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "onnx_tensor.h"

#include <map>
#include <string>

namespace quarry::onnx_io {

class ConstantTable {
public:
  /// Initializer `t` (of a decodable type), decoded on first use; throws
  /// quarry::Error (without position) at once when it holds too few or too
  /// many values for its shape. `t` must outlive the table.
  void add_unread(const onnx::TensorProto &t);
  /// Defines (or replaces) constant `name`.
  void set(const std::string &name, Constant c);
  void erase(const std::string &name);
  bool contains(const std::string &name) const;
  /// Constant `name`, decoded on first use; nullptr when there is none.
  const Constant *find(const std::string &name) const;
  /// Constant `name`; throws std::out_of_range when there is none.
  const Constant &at(const std::string &name) const;
  /// Constant `name`'s values as float32 (a weight's); an initializer not
  /// yet decoded is read from its TensorProto without being kept decoded.
  Tensor<float> as_float(const std::string &name) const;
  /// Constant `name`'s ONNX element type.
  int32_t elem(const std::string &name) const;
  /// The initializer constant `name` is, decoded or not; nullptr for a
  /// constant import made (a Constant node's, a folded result).
  const onnx::TensorProto *initializer(const std::string &name) const;

private:
  /// Constants decoded (an initializer once a node reads it as one), and
  /// the initializers, whether decoded yet or not.
  mutable std::map<std::string, Constant> decoded_;
  std::map<std::string, const onnx::TensorProto *> initializers_;
};

} // namespace quarry::onnx_io
