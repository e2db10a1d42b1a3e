//===- onnx_kept.h - ONNX nodes quarry keeps as they are -----*- C++ -*-===//
//
// An ONNX node quarry cannot express becomes an opaque operator
// (core/ops/opaque.h) whose original NodeProto is kept in Model::kept_onnx,
// a ModelProto that holds:
//   graph.node         the kept nodes, node K for opaque id K, each with the
//                      attribute kReadsAttr naming its operands in order
//   graph.initializer  the constants the kept nodes read (by original name)
//   graph.input        the element types of graph inputs that are not
//                      float32 (by quarry's input name)
//   opset_import       the opsets of the imported model
// and, when the model has an untyped tail:
//   functions          one, kTailFunction: the tail's nodes in model order;
//                      its inputs are the original names of the values the
//                      tail reads from quarry's graph, which are that
//                      graph's last outputs in the same order, and its
//                      outputs the model outputs the tail computes
//   graph.value_info   graph inputs only the tail reads (not tensors of a
//                      fixed shape), as the model declared them
//   graph.output       the model's outputs, as it declared them, in order
// The untyped tail is what follows a value whose shape ONNX cannot fix (a
// NonZero, a sequence, a Loop's scan outputs): the nodes reading such a
// value, transitively. quarry's graph cannot hold them (every value has a
// shape), so they stay ONNX, after it.
// Import fills it (onnx_import_kept.cc); export writes the nodes back.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "onnx_tensor.h"

#include <set>
#include <string>
#include <vector>

namespace quarry::onnx_io {

/// The attribute of a kept node that lists the original names of its
/// opaque operator's operands, in order. Export drops it.
inline constexpr const char *kReadsAttr = "quarry_reads";

/// The name of the function in Model::kept_onnx that holds the untyped
/// tail.
inline constexpr const char *kTailFunction = "quarry_untyped_tail";

/// The untyped tail of `kept`, or nullptr when the model has none.
const onnx::FunctionProto *untyped_tail(const onnx::ModelProto &kept);

/// The names a node's subgraphs read from enclosing scopes (If branches
/// using the main graph's values), in the order of first use.
std::vector<std::string> outer_references(const onnx::NodeProto &n);

/// The names a node reads: its inputs, then what its subgraphs read from
/// enclosing scopes; each once, in order of first use, without the empty
/// names of optional inputs left out.
std::vector<std::string> names_read(const onnx::NodeProto &n);

/// Adds every name defined inside the node's subgraphs (their inputs,
/// initializers and node outputs, nested ones included) to `out`.
void names_defined_inside(const onnx::NodeProto &n, std::set<std::string> &out);

/// `c` as a TensorProto of its own element type, named `name`.
onnx::TensorProto encode_constant(const std::string &name, const Constant &c);

/// The element type and static shape of a value's type; false when it is
/// not a tensor or a dimension is unknown.
bool static_tensor_type(const onnx::TypeProto &t, int32_t &elem, Shape &shape);

/// Model::kept_onnx parsed; an error naming `file` when it is not one.
onnx::ModelProto parse_kept(const std::string &bytes, const std::string &file);

} // namespace quarry::onnx_io
