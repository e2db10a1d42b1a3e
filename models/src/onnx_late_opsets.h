//===- onnx_late_opsets.h - Operators as opsets 18 to 23 define them -*- C++
//-*-===//
//
// quarry's handlers, and ONNX 1.12's checker, shape inference and version
// converter that import and export lean on, know the operators up to opset
// 17. A model of a later opset is read by its own opset's rules all the
// same: import first writes each node in the form opset 17 gives the same
// computation (Importer::opset17_form: ReduceMean's axes input as its
// attribute, Split's num_outputs as sizes, Gelu as Erf and products, ...),
// and export writes the nodes back in the forms of the model's opset
// (raise_from_opset17). Between the two every node is in its opset-17 form,
// whatever the model's opset says; ONNX 1.12 takes that opset's operators
// for the ones it knows, which are the opset-17 ones.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <string>
#include <vector>

namespace quarry::onnx_io {

/// The newest opset ONNX 1.12's schemas describe.
inline constexpr int64_t kSchemaOpset = 17;
/// The newest opset import reads.
inline constexpr int64_t kLatestOpset = 23;

/// A node of `type` reading `in` and writing `out`, named as the node `of`
/// it stands for in an opset-17 form (so that messages name that node).
onnx::NodeProto make_node(const onnx::NodeProto &of, const std::string &type,
                          const std::vector<std::string> &in,
                          const std::vector<std::string> &out);

/// Rewrites the nodes of `graph` and of its subgraphs that are in an
/// opset-17 form which means something else, or nothing, at `opset` into
/// that opset's form of the same computation (a reduction's axes attribute
/// becomes its input from 18; GridSample's bilinear is linear from 20).
/// Nothing changes when `opset` is 17 or earlier.
void raise_from_opset17(onnx::GraphProto &graph, int64_t opset);

/// A node export writes back as a model past opset 17 wrote it is in its
/// own opset's form, not opset 17's, while export checks the graph with
/// ONNX 1.12's checker and raises its opset-17 forms: for that time it
/// stands in a domain of its own (kLateFormDomain, then ':' and its
/// domain), which the checker leaves to its owner and raise_from_opset17
/// does not touch. Import checked it by its own opset's rules.
inline constexpr const char *kLateFormDomain = "quarry.late_form";
void hold_late_form(onnx::NodeProto &n);
/// Declares each domain hold_late_form gave a node of `model`'s graph, for
/// the checker.
void declare_late_forms(onnx::ModelProto &model);
/// Gives each node of `graph` and its subgraphs that hold_late_form moved
/// its domain back.
void release_late_forms(onnx::GraphProto &graph);

} // namespace quarry::onnx_io
