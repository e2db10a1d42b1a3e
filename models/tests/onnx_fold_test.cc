//===- onnx_fold_test.cc - Shape arithmetic folds away at import ----------===//
//
// Exported models compute shapes at run time; with the inputs' shapes fixed,
// the importer evaluates that arithmetic and the graph keeps only the
// algebra. A folded graph output becomes a weight, which lets these tests
// read folded values directly.
//
//===----------------------------------------------------------------------===//
#include "onnx_builder.h"

#include "quarry/core/evaluate.h"
#include "quarry/core/float_domain.h"
#include "quarry/core/text.h"
#include "quarry/core/weights.h"
#include "quarry/models/onnx.h"
#include "quarry/testing/error_of.h"

#include <gtest/gtest.h>

namespace quarry {
namespace {

using namespace quarry::testing;

/// A Constant node producing an int64 (or, with `floats`, float) tensor.
void constant(OnnxModel &m, const std::string &name, const Ints &shape,
              const std::vector<double> &values, bool floats = false) {
  auto &n = m.node("Constant", {}, {name});
  auto *a = n.add_attribute();
  a->set_name("value");
  a->set_type(onnx::AttributeProto::TENSOR);
  auto *t = a->mutable_t();
  t->set_data_type(floats ? onnx::TensorProto::FLOAT
                          : onnx::TensorProto::INT64);
  for (int64_t d : shape)
    t->add_dims(d);
  for (double v : values) {
    if (floats)
      t->add_float_data(static_cast<float>(v));
    else
      t->add_int64_data(static_cast<int64_t>(v));
  }
}

/// The value of the model's only output, which must have folded.
Tensor<float> folded_output(const Model &m) {
  const Node &out = m.graph.node(m.graph.outputs().at(0).node);
  EXPECT_EQ(out.kind, OpKind::Weight) << "the output did not fold";
  return m.weights.at(out.name);
}

std::vector<float> values(const Tensor<float> &t) {
  std::vector<float> v;
  for (int64_t i = 0; i < t.numel(); ++i)
    v.push_back(t[i]);
  return v;
}

Model import(const OnnxModel &m, const std::string &shapes = "") {
  OnnxImportOptions o;
  if (!shapes.empty())
    o.input_shapes.insert(parse_input_shape(shapes));
  return import_onnx_bytes(m.bytes(), "f.onnx", o);
}

TEST(OnnxFold, OperatorsOnlyKernelsRunFoldOnConstants) {
  // Pads from a CumSum, a shape from an ArgMax, an addend from a TopK:
  // all of constants, so each folds and the graph is static.
  OnnxModel m(13);
  m.input("x", {2, 3}).output("y");
  m.ints("steps", {4}, {0, 1, 0, -1}); // cumulative: pads 0, 1, 1, 0
  m.ints("axis", {}, {0});
  m.node("CumSum", {"steps", "axis"}, {"pads"});
  m.node("Pad", {"x", "pads"}, {"padded"}); // [2, 3] -> [3, 4]
  m.floats("scores", {4}, {0.5f, 3.0f, 1.0f, 2.0f});
  m.ints("k", {1}, {1});
  m.node("TopK", {"scores", "k"}, {"best", "at"});
  m.node("Add", {"padded", "best"}, {"y"}); // + 3 everywhere
  const Model g = import_onnx_bytes(m.bytes(), "folds.onnx");
  EXPECT_TRUE(kept_operator_types(g).empty());
  const Bindings<float> b = bind_variables(g.graph, g.weights, 2);
  const Tensor<float> y = evaluate(FloatDomain{}, g.graph, b).at(0);
  ASSERT_EQ(y.shape, (Shape{3, 4}));
  const Tensor<float> &x = b.at("x");
  for (int64_t r = 0; r < 3; ++r)
    for (int64_t c = 0; c < 4; ++c) {
      const float inner = r < 2 && c >= 1 ? x[r * 3 + c - 1] : 0.0f;
      EXPECT_EQ(y[r * 4 + c], inner + 3.0f) << r << "," << c;
    }
  // A kernel's refusal of the constants names the node.
  OnnxModel bad(13);
  bad.input("x", {2}).output("y");
  bad.floats("scores", {2}, {1, 2}).ints("k", {1}, {5});
  bad.node("TopK", {"scores", "k"}, {"best", "at"});
  bad.node("Add", {"x", "best"}, {"y"});
  EXPECT_NE(error_of([&] {
              import_onnx_bytes(bad.bytes(), "bad.onnx");
            }).find("bad.onnx: node 'TopK_best' (TopK): "),
            std::string::npos);
}

TEST(OnnxFold, ShapeGatherUnsqueezeConcatReshapeBecomesOneReshape) {
  OnnxModel m;
  m.input("x", {0, 3, 4}).output("y");
  m.node("Shape", {"x"}, {"s"});
  constant(m, "zero", {}, {0});
  m.node("Gather", {"s", "zero"}, {"n"});
  constant(m, "axes", {1}, {0});
  m.node("Unsqueeze", {"n", "axes"}, {"n1"});
  constant(m, "rest", {1}, {-1});
  auto &cat = m.node("Concat", {"n1", "rest"}, {"shape"});
  set_int(cat, "axis", 0);
  m.node("Reshape", {"x", "shape"}, {"y"});
  const Model g = import(m, "x=2x3x4");
  EXPECT_EQ(g.graph.num_operators(), 1);
  EXPECT_EQ(g.graph.type(g.graph.outputs()[0])->shape, (Shape{2, 12}));
}

TEST(OnnxFold, SizeRangeAndCast) {
  OnnxModel m;
  m.input("x", {2, 3}).output("y");
  m.node("Size", {"x"}, {"n"}); // 6
  constant(m, "one", {}, {1});
  constant(m, "two", {}, {2});
  m.node("Range", {"one", "n", "two"}, {"r"}); // 1, 3, 5
  set_int(m.node("Cast", {"r"}, {"y"}), "to", onnx::TensorProto::FLOAT);
  EXPECT_EQ(values(folded_output(import(m))), (std::vector<float>{1, 3, 5}));
}

TEST(OnnxFold, IntegerDivisionTruncatesAndFloatsDoNot) {
  OnnxModel m;
  m.output("y");
  constant(m, "a", {3}, {-7, 7, 9});
  constant(m, "b", {}, {2});
  m.node("Div", {"a", "b"}, {"q"});
  set_int(m.node("Cast", {"q"}, {"y"}), "to", onnx::TensorProto::FLOAT);
  EXPECT_EQ(values(folded_output(import(m))), (std::vector<float>{-3, 3, 4}));

  OnnxModel f;
  f.output("y");
  constant(f, "a", {2}, {-7, 7}, true);
  constant(f, "b", {}, {2}, true);
  f.node("Div", {"a", "b"}, {"y"});
  EXPECT_EQ(values(folded_output(import(f))), (std::vector<float>{-3.5, 3.5}));
}

TEST(OnnxFold, WhereOnEqualBroadcasts) {
  OnnxModel m;
  m.output("y");
  constant(m, "a", {2, 2}, {1, 2, 3, 4}, true);
  constant(m, "two", {}, {2}, true);
  constant(m, "b", {2}, {10, 20}, true);
  m.node("Equal", {"a", "two"}, {"eq"});
  m.node("Where", {"eq", "b", "a"}, {"y"});
  EXPECT_EQ(values(folded_output(import(m))),
            (std::vector<float>{1, 20, 3, 4}));
}

TEST(OnnxFold, ConstantOfShapeAndExpand) {
  OnnxModel m;
  m.output("y");
  constant(m, "shape", {2}, {2, 3});
  auto &c = m.node("ConstantOfShape", {"shape"}, {"ones"});
  auto *a = c.add_attribute();
  a->set_name("value");
  a->set_type(onnx::AttributeProto::TENSOR);
  a->mutable_t()->set_data_type(onnx::TensorProto::FLOAT);
  a->mutable_t()->add_dims(1);
  a->mutable_t()->add_float_data(1.5f);
  constant(m, "col", {2, 1}, {1, 2}, true);
  m.node("Expand", {"col", "shape"}, {"e"});
  m.node("Mul", {"ones", "e"}, {"y"});
  const Tensor<float> y = folded_output(import(m));
  EXPECT_EQ(y.shape, (Shape{2, 3}));
  EXPECT_EQ(values(y), (std::vector<float>{1.5, 1.5, 1.5, 3, 3, 3}));
}

TEST(OnnxFold, SliceWithNegativeStepAndClampedBounds) {
  OnnxModel m;
  m.output("y");
  constant(m, "a", {5}, {0, 1, 2, 3, 4}, true);
  constant(m, "starts", {1}, {-1});
  constant(m, "ends", {1}, {-1000});
  constant(m, "axes", {1}, {0});
  constant(m, "steps", {1}, {-2});
  m.node("Slice", {"a", "starts", "ends", "axes", "steps"}, {"y"});
  EXPECT_EQ(values(folded_output(import(m))), (std::vector<float>{4, 2, 0}));
}

std::vector<Tensor<float>> run(const Model &m, const Tensor<float> &x) {
  Bindings<float> b = m.weights;
  b.emplace("x", x);
  return evaluate(FloatDomain{}, m.graph, b);
}

Tensor<float> iota(const Shape &s) {
  Tensor<float> t(s, 0.0f);
  for (int64_t i = 0; i < t.numel(); ++i)
    t[i] = static_cast<float>(i);
  return t;
}

TEST(OnnxFold, GatherFromAComputedTensorAtConstantIndices) {
  OnnxModel m;
  m.input("x", {2, 5}).output("y");
  constant(m, "idx", {3}, {3, 4, 0});
  set_int(m.node("Gather", {"x", "idx"}, {"y"}), "axis", 1);
  const auto y = run(import(m), iota(Shape{2, 5}));
  EXPECT_EQ(y[0].shape, (Shape{2, 3}));
  EXPECT_EQ(values(y[0]), (std::vector<float>{3, 4, 0, 8, 9, 5}));

  OnnxModel s; // a scalar index drops the axis
  s.input("x", {2, 5}).output("y");
  constant(s, "idx", {}, {-1});
  s.node("Gather", {"x", "idx"}, {"y"});
  const auto row = run(import(s), iota(Shape{2, 5}));
  EXPECT_EQ(row[0].shape, (Shape{5}));
  EXPECT_EQ(values(row[0]), (std::vector<float>{5, 6, 7, 8, 9}));
}

TEST(OnnxFold, MaxOfSeveralOperandsAndExpandOfAComputedTensor) {
  OnnxModel m;
  m.input("x", {2, 3}).output("y");
  constant(m, "lo", {3}, {1, 2, 3}, true);
  constant(m, "hi", {}, {0}, true);
  m.node("Max", {"x", "lo", "hi"}, {"mx"});
  constant(m, "shape", {3}, {2, 2, 3});
  m.node("Expand", {"mx", "shape"}, {"y"});
  const auto y = run(import(m), iota(Shape{2, 3}));
  EXPECT_EQ(y[0].shape, (Shape{2, 2, 3}));
  EXPECT_EQ(values(y[0]),
            (std::vector<float>{1, 2, 3, 3, 4, 5, 1, 2, 3, 3, 4, 5}));
}

TEST(OnnxFold, AnIndexOutOfRangeNamesTheNode) {
  OnnxModel m;
  m.input("x", {2, 3}).output("y");
  m.node("Shape", {"x"}, {"s"});
  constant(m, "idx", {}, {2});
  m.node("Gather", {"s", "idx"}, {"y"}).set_name("pick");
  EXPECT_EQ(error_of([&] { import(m); }),
            "f.onnx: node 'pick' (Gather): index 2 out of range for axis 0 "
            "of [2]");
}

} // namespace
} // namespace quarry

namespace quarry {
namespace {

using namespace quarry::testing;

TEST(OnnxFoldByReference, PadsSplitFromAnInitializerAreAConstant) {
  // Pads computed as Concat(Split(initializer)), as some exporters write.
  OnnxModel m(13);
  m.input("x", {2, 3}).output("y").ints("parts", {0, 1, 1, 0});
  m.ints("sizes", {2, 2});
  m.node("Split", {"parts", "sizes"}, {"a", "b"});
  set_int(m.node("Concat", {"b", "a"}, {"pads"}), "axis", 0);
  m.node("Pad", {"x", "pads"}, {"y"});
  const Model g = import(m);
  const Graph want =
      parse_graph("input x\ny = pad[pads=1,0,0,1](x)\noutput y", "want");
  const Bindings<float> b = bind_variables(g.graph, g.weights, 1);
  EXPECT_EQ(evaluate(FloatDomain{}, g.graph, b).at(0).data,
            evaluate(FloatDomain{}, want, b).at(0).data);
  EXPECT_EQ(g.graph.num_nodes(), 2); // x and the pad
}

TEST(OnnxFoldByReference, FloatOperatorsOfConstantsFoldToTheirValues) {
  // relu(transpose(w)) of a constant is a constant; a mean of integers
  // that is not an integer is left to the graph.
  OnnxModel m(13);
  m.output("y").output("z").floats("w", {2, 2}, {-1, 2, 3, -4});
  m.ints("n", {1, 2});
  m.node("Transpose", {"w"}, {"t"});
  m.node("Relu", {"t"}, {"y"});
  set_int(m.node("ReduceMean", {"n"}, {"z"}), "keepdims", 0);
  const Model g = import(m);
  EXPECT_EQ(values(folded_output(g)), (std::vector<float>{0, 3, 2, 0}));
  const Node &z = g.graph.node(g.graph.outputs().at(1).node);
  EXPECT_EQ(z.kind, OpKind::ReduceMean);
}

} // namespace
} // namespace quarry
