//===- open_dims_test.cc - Which open dimensions a rewritten model keeps --===//
#include "onnx_builder.h"
#include "without_records.h"

#include "quarry/runtime/backends.h"
#include "quarry/runtime/run_inputs.h"
#include "quarry/staged/open_dims.h"
#include "quarry/staged/staged_executable.h"

#include <gtest/gtest.h>

namespace quarry::staged {
namespace {

using namespace quarry::testing;

/// x [N,2,3] -> Flatten -> Relu -> y [N,6].
OnnxModel flatten_relu() {
  OnnxModel m;
  m.input("x", {0, 2, 3});
  OnnxModel::value(m.proto().mutable_graph()->add_output(), "y", {0, 6});
  set_int(m.node("Flatten", {"x"}, {"f"}), "axis", 1);
  m.node("Relu", {"f"}, {"y"});
  return m;
}

/// keep_open_dims of `original` and `written` at `fixed`, on cpu.
OpenDims open_dims_of(const std::string &original, const std::string &written,
                      const OnnxImportOptions &fixed) {
  auto cpu = runtime::make_backend("cpu");
  return keep_open_dims(original, written, fixed, *cpu, 1, 1e-6, "m.onnx");
}

/// `original` imported at `fixed` and exported.
std::string written_at(const std::string &original,
                       const OnnxImportOptions &fixed) {
  return export_onnx_bytes(import_onnx_bytes(original, "m.onnx", fixed));
}

OnnxImportOptions at_batch(int64_t n) {
  OnnxImportOptions o;
  o.input_shapes["x"] = Shape{n, 2, 3};
  return o;
}

TEST(OpenDims, DeclaredOpenWhereTheWrittenModelHoldsAtOtherValues) {
  // The Flatten written back as the model wrote it holds at any batch.
  const std::string original = flatten_relu().bytes();
  const std::string written = written_at(original, at_batch(2));
  const OpenDims open = open_dims_of(original, written, at_batch(2));
  EXPECT_EQ(open.kept, std::vector<std::string>{"N"});
  EXPECT_TRUE(open.fixed.empty());
  // It runs at a batch it was never checked at.
  const Model m = import_onnx_bytes(open.model, "open.onnx", at_batch(7));
  const Bindings<float> in = runtime::random_run_inputs(m.graph, 3);
  auto cpu = runtime::make_backend("cpu");
  auto exe = prepare_model(m, in, *cpu, "open.onnx");
  const auto out = runtime::run_once(*exe, in);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].shape, (Shape{7, 6}));
  const Tensor<float> &x = in.begin()->second;
  for (int64_t i = 0; i < out[0].numel(); ++i)
    EXPECT_EQ(out[0].data[i], std::max(0.0f, x.data[i]));
}

TEST(OpenDims, QuarrysReshapeHoldsAtOtherValues) {
  // In quarry's forms, as a rewrite writes it, the Flatten is a Reshape,
  // written to copy the batch (0) and infer the rest (-1).
  const std::string original = flatten_relu().bytes();
  const std::string written = export_onnx_bytes(
      without_records(import_onnx_bytes(original, "m.onnx", at_batch(2))));
  const OpenDims open = open_dims_of(original, written, at_batch(2));
  EXPECT_EQ(open.kept, std::vector<std::string>{"N"});
}

TEST(OpenDims, LeftFixedWhereTheWrittenModelHoldsTheValue) {
  // y = x * (x's batch): import folds the batch into a constant, so the
  // written model multiplies by 2 at any batch.
  OnnxModel m;
  m.input("x", {0, 4});
  OnnxModel::value(m.proto().mutable_graph()->add_output(), "y", {0, 4});
  m.ints("zero", {}, {0});
  m.node("Shape", {"x"}, {"s"});
  set_int(m.node("Gather", {"s", "zero"}, {"n"}), "axis", 0);
  set_int(m.node("Cast", {"n"}, {"nf"}), "to", onnx::TensorProto::FLOAT);
  m.node("Mul", {"x", "nf"}, {"y"});
  OnnxImportOptions fixed;
  fixed.input_shapes["x"] = Shape{2, 4};
  const std::string written = written_at(m.bytes(), fixed);
  const OpenDims open = open_dims_of(m.bytes(), written, fixed);
  EXPECT_TRUE(open.kept.empty());
  EXPECT_EQ(open.fixed, std::vector<std::string>{"N"});
  EXPECT_EQ(open.model, written);
}

TEST(OpenDims, EachDimensionOnItsOwn) {
  // x [N,C] + b [C]: the bias fixes C, not N.
  OnnxModel m;
  m.input("x", {0, 0});
  auto *dims = m.proto()
                   .mutable_graph()
                   ->mutable_input(0)
                   ->mutable_type()
                   ->mutable_tensor_type()
                   ->mutable_shape();
  dims->mutable_dim(1)->set_dim_param("C");
  m.floats("b", {4}, {1, 2, 3, 4});
  OnnxModel::value(m.proto().mutable_graph()->add_output(), "y", {0, 4});
  m.node("Add", {"x", "b"}, {"y"});
  OnnxImportOptions fixed;
  fixed.input_shapes["x"] = Shape{1, 4};
  const std::string written = written_at(m.bytes(), fixed);
  const OpenDims open = open_dims_of(m.bytes(), written, fixed);
  EXPECT_EQ(open.kept, std::vector<std::string>{"N"});
  EXPECT_EQ(open.fixed, std::vector<std::string>{"C"});
}

} // namespace
} // namespace quarry::staged
