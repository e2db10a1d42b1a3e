//===- onnx_sequences.h - Sequences of known tensors as tensor nodes -*- C++
//-*-===//
//
// Before import: the sequence nodes of a graph whose sequences hold known
// lists of tensors, rewritten as the tensor nodes that compute the same
// (onnx_sequences.cc says which and when).
//
//===----------------------------------------------------------------------===//
#pragma once

#include <onnx/onnx_pb.h>

namespace quarry::onnx_io {

/// Rewrites `model`'s sequence nodes as tensor nodes where every sequence
/// of its graph resolves to a known list of tensors; true where it did,
/// false (the model unchanged) otherwise.
bool tensors_for_sequences(onnx::ModelProto &model);

} // namespace quarry::onnx_io
