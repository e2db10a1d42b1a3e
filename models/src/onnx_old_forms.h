//===- onnx_old_forms.h - A model written at an earlier opset ---*- C++ -*-===//
//
// Export writes quarry's operators in the forms of opset 14 or later, and
// an imported model goes back out at its own opset where every node can be
// said there: what later opsets take as constant inputs (Pad's pads,
// Slice's bounds, Clip's bounds, the axes of Squeeze, Unsqueeze and
// ReduceSum, Split's sizes) goes back to attributes; broadcasting before
// opset 7 is asked for (`broadcast`, `axis`); an operator whose meaning
// changed keeps its old meaning where its operands' shapes say so (Softmax
// over the last axis, Max of equal shapes). ONNX's version converter has
// almost no adapters down.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <set>
#include <string>

namespace quarry::onnx_io {

/// `m` with each initializer of more than 64 values made a graph input of
/// its type and shape: what inference and the checker need of it, without
/// copying a model's weights. The small ones (shapes, pads, axes) stay,
/// since inference reads their values.
onnx::ModelProto skeleton(const onnx::ModelProto &m);

/// Declares `model` at the earlier `opset`, its nodes in that opset's
/// forms, where every node can be said there with the same meaning and
/// the checker and strict type inference accept the result; returns false,
/// leaving `model` as it was, where not. Below opset 7, where ONNX Runtime
/// runs no operator that changed since (Add 6, AveragePool 1), every node
/// must be one that did not change up to 7 or one of `runnable`: the
/// operators the imported model used, which its own runtime ran.
bool lower_opset(onnx::ModelProto &model, int64_t opset,
                 const std::set<std::string> &runnable);

} // namespace quarry::onnx_io
