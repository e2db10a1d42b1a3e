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

#include "quarry/core/evaluate.h"
#include "quarry/core/graph.h"

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

/// Writes `t` to `path` (".npy", float32 only, else a TensorProto named
/// `name` of ONNX element type `elem`, float32 by default: ints and bools
/// rounded to the nearest), atomically.
void write_tensor_file(const std::string &path, const Tensor<float> &t,
                       const std::string &name = "",
                       int32_t elem = 1 /* ONNX FLOAT */);

/// Values for `g`'s inputs from "NAME=FILE" specifications (`--input`):
/// NAME is the input's name in `g` or in the ONNX model it came from
/// (which import spells with '_' for other characters). Errors name the
/// file or the specification: an unknown input, a file that cannot be
/// read, another shape, or an element type that is not float (bool files
/// give 0 and 1, as quarry holds ONNX's bools).
Bindings<float> read_input_files(const Graph &g,
                                 const std::vector<std::string> &specs);

/// Writes `outputs` as DIR/output_K.pb, each a TensorProto named as
/// `names` names it and of the ONNX element type `elems` gives it (float32
/// past its end), as ONNX's test data sets hold them; creates DIR.
/// Returns the files written.
std::vector<std::string>
save_output_files(const std::vector<std::string> &names,
                  const std::vector<Tensor<float>> &outputs,
                  const std::string &dir,
                  const std::vector<int32_t> &elems = {});

} // namespace quarry
