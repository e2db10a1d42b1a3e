//===- tensor_file.h - One tensor per file: ONNX .pb or NumPy .npy -*- C++
//-*-===//
//
// What users and ONNX's own test cases keep inputs and expected outputs in:
// a serialized onnx.TensorProto (`.pb`) or a NumPy array (`.npy`, version
// 1 to 3, little-endian, C order). Values are read as float32, the only
// element type quarry's graphs hold; integer and bool tensors convert
// exactly where float32 can hold them.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/core/domain.h"

#include <string>

namespace quarry {

struct TensorFile {
  /// The TensorProto's name (empty in .npy files and unnamed protos).
  std::string name;
  /// Element type as ONNX spells it: "float", "int64", "bool", ...
  std::string elem_type;
  Tensor<float> value;
};

/// Reads `path` (by extension: ".npy" is NumPy, anything else a
/// TensorProto); errors name the file and say what is wrong.
TensorFile read_tensor_file(const std::string &path);

/// Writes `t` as float32 to `path` (".npy", else a TensorProto named
/// `name`), atomically.
void write_tensor_file(const std::string &path, const Tensor<float> &t,
                       const std::string &name = "");

} // namespace quarry
