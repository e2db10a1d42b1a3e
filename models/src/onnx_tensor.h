//===- onnx_tensor.h - TensorProto <-> quarry tensors -----------*- C++ -*-===//
#pragma once

#include "quarry/core/domain.h"

#include <onnx/onnx_pb.h>

#include <string>
#include <vector>

namespace quarry::onnx_io {

/// A constant of any numeric ONNX type: values as doubles, and as integers
/// (exact for int64 data such as shapes and slice bounds).
struct Constant {
  /// The ONNX element type (onnx::TensorProto::DataType).
  int32_t elem = onnx::TensorProto::FLOAT;
  Shape shape;
  std::vector<double> reals;
  std::vector<int64_t> ints;
  Tensor<float> as_float() const;
};

/// The name of ONNX element type `elem` ("FLOAT", "INT64"), the types of
/// ONNX versions after 1.12 included (FLOAT8E4M3FN, INT4, FLOAT4E2M1, ...);
/// "type N" for a number no ONNX version names.
std::string elem_type_name(int32_t elem);

/// Decodes a TensorProto (float, float16, bfloat16, double, int32/64,
/// int8/16, uint8/16, bool; raw or typed fields); throws a message without
/// position on failure.
Constant decode_tensor(const onnx::TensorProto &t);

/// Throws quarry::Error (without position) naming `t` when it stores
/// another number of values than its shape holds.
void check_value_count(const onnx::TensorProto &t);

/// decode_tensor(t).as_float(), without the Constant where `t` is float32.
Tensor<float> decode_float(const onnx::TensorProto &t);

/// Whether decode_tensor reads tensors of ONNX element type `elem`.
bool decodable(int32_t elem);

/// Whether quarry holds values of ONNX element type `elem` as float32:
/// float32, and float16 and bfloat16, whose every value is a float32 and
/// which quarry computes in float32.
bool held_as_float(int32_t elem);

/// Whether `elem` is float16 or bfloat16: held as float32, narrower.
bool half_float(int32_t elem);

/// Whether ONNX element type `elem` holds whole numbers: not a float type
/// (bools and the integers).
bool integral(int32_t elem);

/// Whether quarry holds a graph input of ONNX element type `elem` as
/// float32 values that are exactly its own: bools as 0 and 1, and the 8-
/// and 16-bit integers of quantized models.
bool held_exactly(int32_t elem);

/// `v` rounded to the nearest value of float element type `elem` (FLOAT16
/// or BFLOAT16; ties to even, as ONNX's Cast rounds); `v` for other types.
float round_to(int32_t elem, float v);

/// The size a serialized protobuf message must stay below (2 GiB).
inline constexpr uint64_t kMaxMessageBytes = uint64_t{1} << 31;

/// A float32 TensorProto named `name` holding `t` as raw data (which may
/// pass what one message serializes: its writer checks that).
onnx::TensorProto encode_tensor(const std::string &name,
                                const Tensor<float> &t);
/// The same, of float element type `elem` (FLOAT16, BFLOAT16: each value
/// rounded by round_to).
onnx::TensorProto encode_tensor(const std::string &name, const Tensor<float> &t,
                                int32_t elem);
/// An int64 TensorProto (shapes, axes, sizes).
onnx::TensorProto encode_ints(const std::string &name,
                              const std::vector<int64_t> &values);

} // namespace quarry::onnx_io
