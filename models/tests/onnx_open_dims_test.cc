//===- onnx_open_dims_test.cc - Input dimensions a model leaves open ------===//
#include "onnx_builder.h"

#include "quarry/models/onnx_open_dims.h"

#include <gtest/gtest.h>

namespace quarry {
namespace {

using namespace quarry::testing;

const onnx::TensorShapeProto &shape(const onnx::ValueInfoProto &vi) {
  return vi.type().tensor_type().shape();
}

TEST(OnnxOpenDims, NamedByTheModelOrByPosition) {
  OnnxModel m;
  m.input("x", {0, 3, 0}).input("y", {2, 0});
  m.floats("w", {1}, {1.0f}); // an initializer, not fed, N in name only
  OnnxModel::value(m.proto().mutable_graph()->add_input(), "w", {0});
  auto *x = m.proto().mutable_graph()->mutable_input(0);
  x->mutable_type()
      ->mutable_tensor_type()
      ->mutable_shape()
      ->mutable_dim(2)
      ->set_dim_param("H");
  m.proto()
      .mutable_graph()
      ->mutable_input(1)
      ->mutable_type()
      ->mutable_tensor_type()
      ->mutable_shape()
      ->mutable_dim(1)
      ->Clear();
  const std::vector<OpenDim> dims = open_input_dims(m.bytes());
  ASSERT_EQ(dims.size(), 3u);
  EXPECT_EQ(dims[0].input, "x");
  EXPECT_EQ(dims[0].axis, 0);
  EXPECT_EQ(dims[0].name, "N");
  EXPECT_TRUE(dims[0].named);
  EXPECT_EQ(dims[1].name, "H");
  EXPECT_EQ(dims[2].name, "y[1]");
  EXPECT_FALSE(dims[2].named);
  EXPECT_EQ(open_dim_names(dims), (std::vector<std::string>{"N", "H", "y[1]"}));

  OnnxImportOptions fixed;
  fixed.input_shapes["x"] = Shape{2, 3, 5};
  fixed.input_shapes["y"] = Shape{2, 7};
  const OnnxImportOptions at = with_open_dims(fixed, dims, {{"N", 4}});
  EXPECT_EQ(at.input_shapes.at("x"), (Shape{4, 3, 5}));
  EXPECT_EQ(at.input_shapes.at("y"), (Shape{2, 7})); // its 2 is no N
}

TEST(OnnxOpenDims, DeclaredOpenAsTheOriginalDeclaresThem) {
  OnnxModel m;
  m.input("x", {0, 3});
  OnnxModel::value(m.proto().mutable_graph()->add_output(), "y", {0, 3});
  m.node("Relu", {"x"}, {"y"});
  OnnxImportOptions fixed;
  fixed.input_shapes["x"] = Shape{2, 3};
  const std::string written =
      export_onnx_bytes(import_onnx_bytes(m.bytes(), "m.onnx", fixed));
  // Nothing named: the written model as it is.
  EXPECT_EQ(declare_open_dims(m.bytes(), written, {}), written);
  EXPECT_EQ(declare_open_dims(m.bytes(), written, {"H"}), written);
  onnx::ModelProto out;
  ASSERT_TRUE(
      out.ParseFromString(declare_open_dims(m.bytes(), written, {"N"})));
  EXPECT_EQ(shape(out.graph().input(0)).dim(0).dim_param(), "N");
  EXPECT_EQ(shape(out.graph().input(0)).dim(1).dim_value(), 3);
  EXPECT_EQ(shape(out.graph().output(0)).dim(0).dim_param(), "N");
  for (const auto &vi : out.graph().value_info())
    EXPECT_FALSE(vi.type().tensor_type().has_shape()) << vi.name();
}

} // namespace
} // namespace quarry
