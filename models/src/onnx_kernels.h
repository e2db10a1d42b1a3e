//===- onnx_kernels.h - quarry's kernels for kept ONNX operators -*- C++
//-*-===//
//
// The operators quarry's algebra has no form for, because their outputs'
// shapes or values depend on comparing their operands' values or on their
// positions: NonZero and TopK; NonMaxSuppression and RoiAlign (what
// detection models end in); ArgMax, ArgMin, GatherND, Compress, OneHot and
// Unique (selecting by index or value); CumSum, Trilu, EyeLike,
// ReverseSequence, IsInf and IsNaN (masks and running sums); Det;
// HannWindow, HammingWindow and BlackmanWindow; NegativeLogLikelihoodLoss
// and SoftmaxCrossEntropyLoss (training graphs' losses); and what quarry
// keeps when it reads integers a kernel computed: Cast, CastLike, Gather,
// and Add, Sub, Mul, Div and Mod on integers (wrapping as ONNX's integers
// do); ScatterElements, ScatterND and MaxUnpool at computed indices, and
// MaxPool with its Indices output. They run on concrete values between a
// model's static stages (quarry/models/onnx_stages.h), with ONNX's
// semantics of each operator at the model's opset.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/models/onnx_stages.h"

#include <onnx/onnx_pb.h>

#include <optional>
#include <vector>

namespace quarry::onnx_io {

/// Whether quarry has a kernel for ONNX operator `op_type` (default
/// domain).
bool has_kernel(const std::string &op_type);

/// Runs `n`, a node of a model of ONNX opset `opset`, on `in` (its inputs
/// in order, nullptr for an absent optional one) with quarry's kernel for
/// its operator: its outputs in order, with
/// their ONNX element types (an output the node leaves unnamed is computed
/// all the same). Throws quarry::Error saying what is wrong with an
/// operand or attribute, without naming the node (the caller does).
/// Precondition: has_kernel(n.op_type()).
std::vector<HeldValue> run_kernel(const onnx::NodeProto &n, int64_t opset,
                                  const std::vector<const HeldValue *> &in);

} // namespace quarry::onnx_io
