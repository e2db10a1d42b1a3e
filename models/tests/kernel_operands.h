//===- kernel_operands.h - Operands and nodes for kernel tests --*- C++ -*-===//
#pragma once

#include "quarry/models/onnx_stages.h"

#include <onnx/onnx_pb.h>

#include <string>
#include <vector>

namespace quarry::testing {

/// A value of `shape` holding `data`, of ONNX element type `elem`.
inline HeldValue value(Shape shape, std::vector<float> data,
                       int32_t elem = onnx::TensorProto::FLOAT) {
  return HeldValue{Tensor<float>(std::move(shape), std::move(data)), elem};
}

/// A node of operator `op` without inputs, outputs or attributes.
inline onnx::NodeProto node(const std::string &op) {
  onnx::NodeProto n;
  n.set_op_type(op);
  return n;
}

} // namespace quarry::testing
