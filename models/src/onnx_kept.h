//===- onnx_kept.h - What quarry keeps of an imported model --*- C++ -*-===//
//
// An ONNX node quarry cannot express becomes an opaque operator
// (core/ops/opaque.h) whose original NodeProto is kept in Model::kept_onnx,
// a ModelProto that holds:
//   graph.node         the kept nodes, node K for opaque id K, each with the
//                      attribute kReadsAttr naming its operands in order
//                      and kKeptBecauseAttr saying why quarry keeps it
//   graph.initializer  the constants the kept and recorded nodes read (by
//                      original name)
//   graph.input        the element types of graph inputs that are not
//                      float32, and of weights made of float16 and
//                      bfloat16 constants (by quarry's variable name)
//   graph.output       the model's outputs, as it declared them, in order
//   opset_import       the opsets of the imported model
//   functions          kInterfaceFunction: the graph inputs an application
//                      feeds, in the declared order: its outputs are their
//                      ONNX names, its inputs the names quarry gave them
//                      (the same for those only an untyped tail reads),
//                      and one node kOperatorsRecord whose attribute
//                      `types` lists the model's operators (its default
//                      domain's, main graph)
//                      kNamesFunction: the ONNX names of the values quarry
//                      computes or holds as they were in the model, one
//                      node per quarry operator or weight: its input
//                      quarry's name (an operator's output names comma-
//                      joined, as the text form binds them), its outputs
//                      the ONNX names in the same order, its name the ONNX
//                      node's
//                      kRestorableFunction: the nodes export can write
//                      back as the model had them, each with the shape of
//                      the operators import made of it (onnx_restorable.h)
//                      kFoldedWeightsFunction: the nodes that folded into
//                      weights of another type (a DequantizeLinear of int8
//                      weights), which export writes back in their place
//                      (onnx_restorable.h)
//   producer_*, domain, model_version, doc_string, metadata_props,
//   graph.name, graph.doc_string
//                      the imported model's, which export writes back
// and, when the model has an untyped tail:
//   functions          also kTailFunction: the tail's nodes in model order
//                      (its doc_string why quarry keeps the first);
//                      its inputs are the original names of the values the
//                      tail reads from quarry's graph, which are that
//                      graph's last outputs in the same order, and its
//                      outputs the model outputs the tail computes
//   graph.value_info   graph inputs only the tail reads (not tensors of a
//                      fixed shape), as the model declared them
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

/// The attribute of a kept node that says why quarry keeps it (what it
/// lacks), for messages. Export drops it.
inline constexpr const char *kKeptBecauseAttr = "quarry_kept_because";

/// Removes the attributes quarry adds to a node it keeps (kReadsAttr,
/// kKeptBecauseAttr) or records (onnx_restorable.h): the node as the model
/// wrote it.
void drop_quarry_attrs(onnx::NodeProto &n);

/// Why quarry keeps node `n` (its kKeptBecauseAttr), "" when it does not
/// say.
std::string kept_because(const onnx::NodeProto &n);

/// The name of the function in Model::kept_onnx that holds the untyped
/// tail.
inline constexpr const char *kTailFunction = "quarry_untyped_tail";

/// The name of the function in Model::kept_onnx that pairs quarry's graph
/// inputs with the ONNX names the imported model gave them.
inline constexpr const char *kInterfaceFunction = "quarry_interface";

/// The name of the function in Model::kept_onnx that pairs quarry's names
/// of values with the ONNX names the imported model gave them.
inline constexpr const char *kNamesFunction = "quarry_names";

/// The domain of quarry's records in Model::kept_onnx. The model's own
/// local functions, which kept nodes may call, are there too, in their
/// domains; export writes those back.
inline constexpr const char *kRecordDomain = "quarry";

/// Record `name` of `kept` (a function of kRecordDomain), or nullptr.
const onnx::FunctionProto *quarry_record(const onnx::ModelProto &kept,
                                         const char *name);

/// The names record of `kept`, or nullptr when it has none.
const onnx::FunctionProto *names_record(const onnx::ModelProto &kept);

/// The node of the interface record that lists the imported model's
/// operators: what the model's own runtime ran.
inline constexpr const char *kOperatorsRecord = "Operators";

/// The operators the imported model of `kept` used (its interface
/// record's kOperatorsRecord); empty when it has no such record.
std::set<std::string> imported_operators(const onnx::ModelProto &kept);

/// The interface record of `kept`, or nullptr when it has none (a model
/// not imported from ONNX, or saved before there was one).
const onnx::FunctionProto *interface_record(const onnx::ModelProto &kept);

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

/// How messages name node `n`: "node 'NAME' (Op)", by its name, else its
/// first output; a name past 80 characters kept to its first and last 36
/// around "...", so that a message stays one readable line.
std::string node_label(const onnx::NodeProto &n);

/// Whether `domain` names ONNX's own operators ("" or "ai.onnx").
inline bool default_domain(const std::string &domain) {
  return domain.empty() || domain == "ai.onnx";
}

/// The names `g` gives values: its inputs, initializers and node outputs
/// (not those inside subgraphs).
std::set<std::string> names_held(const onnx::GraphProto &g);

/// The names of `g` its nodes' subgraphs read (outer_references of each).
std::set<std::string> names_read_by_subgraphs(const onnx::GraphProto &g);

/// The operator of `op`, or of a node inside its subgraphs, that does not
/// mean the same at opset `to` as at `from` ("" when none does): the same
/// schema, or one that takes the node's inputs and outputs as the same
/// parameters and whose later version only added attributes the node
/// leaves unset (a change of types, or allowzero), means the same, but for the
/// operators whose meaning changed under the same signature (Softmax's axis at
/// 13, the variadic Max, Min, Sum and Mean broadcasting from 8, PRelu's from
/// 7).
std::string changed_operator(const onnx::NodeProto &op, int64_t from,
                             int64_t to);

/// `c` as a TensorProto of its own element type, named `name`.
onnx::TensorProto encode_constant(const std::string &name, const Constant &c);

/// `t` (quarry's floats) as a TensorProto of ONNX element type `elem`,
/// named `name`: integers and bools rounded to the nearest, float16 and
/// bfloat16 rounded as encode_tensor rounds them.
onnx::TensorProto encode_as(const std::string &name, const Tensor<float> &t,
                            int32_t elem);

/// The element type and static shape of a value's type; false when it is
/// not a tensor or a dimension is unknown.
bool static_tensor_type(const onnx::TypeProto &t, int32_t &elem, Shape &shape);

/// Model::kept_onnx parsed; an error naming `file` when it is not one.
onnx::ModelProto parse_kept(const std::string &bytes, const std::string &file);

} // namespace quarry::onnx_io
