//===- onnx_restorable.h - ONNX nodes written back as they were -*- C++ -*-===//
//
// Import states most ONNX nodes as several of quarry's operators (an
// InstanceNormalization as reductions and broadcasts, a 3-D convolution as
// 2-D ones over slices, a Conv with its bias as a conv2d and an add) or as
// one in another form (GlobalAveragePool as a pool over the whole image).
// So that a model goes back out as it came in wherever quarry did not
// rewrite it, import records each such node with the shape of what it made
// (kRestorableFunction in Model::kept_onnx, onnx_kept.h), and export writes
// the node itself in place of those operators wherever the graph still
// holds them as import made them: the same operators and attributes, wired
// the same way, reading the same values, and read by nothing but what read
// the node's outputs. What a rewrite touched goes out in quarry's forms.
//
// A record is the ONNX node as the model wrote it, with three attributes
// export drops:
//   kShapeAttr     the group's shape (group_shape): its operators in order,
//                  each with its attributes' hash and what it reads
//   kOperandsAttr  per input: "" (absent), a value's reference (value_ref)
//                  or kConstantOperand, a constant written as the kept
//                  constants are (graph.initializer of the kept model)
//   kResultsAttr   per output: the reference of the value computing it, or
//                  "" for an output the node leaves unnamed
//   kTypesAttr     where the node reads or computes values quarry holds as
//                  float32 but the model types otherwise (bools, quantized
//                  integers, float16, bfloat16): per input, then per
//                  output, that ONNX type, 0 for float32
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/core/graph.h"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace quarry::onnx_io {

/// The name of the function in Model::kept_onnx that holds the records.
inline constexpr const char *kRestorableFunction = "quarry_restorable";

inline constexpr const char *kShapeAttr = "quarry_shape";
inline constexpr const char *kOperandsAttr = "quarry_operands";
inline constexpr const char *kResultsAttr = "quarry_results";
inline constexpr const char *kTypesAttr = "quarry_types";
inline constexpr const char *kConstantOperand = "=";

/// The operators of a group, found from the values it computes.
struct GroupShape {
  /// One line per operator, operands before the operators reading them:
  /// its kind, its attributes' hash and what it reads (an earlier line's
  /// output, or a leaf's reference).
  std::string text;
  /// The operators, in the text's order.
  std::vector<int32_t> nodes;
  /// The values it reads from outside, in the order first read.
  std::vector<ValueRef> leaves;
};

/// The name of the function in Model::kept_onnx that holds the nodes whose
/// outputs folded at import into weights the model stores smaller than
/// quarry's float32 (a DequantizeLinear of int8 weights, a Cast of float16
/// ones). Each record is the node as the model wrote it (its constant
/// inputs among the kept constants, in their own types), and
///   - where its output became a weight: kResultsAttr the quarry weight,
///     kDimsAttr the dims of the node's output and kValuesHashAttr
///     values_hash of its values; export writes the node in place of the
///     weight's float32 initializer where that is written in those dims
///     and the weight still holds those values;
///   - where a recorded node reads its output as a constant operand:
///     nothing more; export writes the node in place of the constant.
inline constexpr const char *kFoldedWeightsFunction = "quarry_folded_weights";
inline constexpr const char *kDimsAttr = "quarry_dims";
inline constexpr const char *kValuesHashAttr = "quarry_values_hash";

/// A hash of the bits of `t`'s values.
int64_t values_hash(const Tensor<float> &t);

/// A value's reference in a record: its node's name and output, "" where
/// the node has no name.
std::string value_ref(const Graph &g, ValueRef v);

/// The operators computing `results`, walking back to the values of nodes
/// `is_leaf` accepts (and of every variable); nothing when a leaf has no
/// name, since a record could not find it again.
std::optional<GroupShape>
group_shape(const Graph &g, const std::vector<ValueRef> &results,
            const std::function<bool(int32_t)> &is_leaf);

} // namespace quarry::onnx_io
