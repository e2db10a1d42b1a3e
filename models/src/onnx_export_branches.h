//===- onnx_export_branches.h - Choices by Where written as If -*- C++ -*-===//
//
// Import writes an If on a computed condition as both branches and a Where
// per output (onnx_import_branches.cc), and export would write that: an
// engine reading the file then computes both branches on every run.
// wheres_as_ifs writes such a choice back as an If: the Wheres on one
// single-element condition whose operands have their result's type become
// one If, and the nodes only one side of them reads move into that side's
// branch. A choice whose If could not stand where its last Where stands
// (a node between its Wheres reads one of them) stays as it is, and so
// does one inside another's branch.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <onnx/onnx_pb.h>

namespace quarry::onnx_io {

/// Rewrites `model`'s main graph as above; returns how many Ifs it wrote.
/// Leaves the model as it was where ONNX's type inference cannot type the
/// conditions, or where the checker (opsets up to 17, which it knows)
/// refuses the result.
int wheres_as_ifs(onnx::ModelProto &model);

} // namespace quarry::onnx_io
