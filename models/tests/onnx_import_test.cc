//===- onnx_import_test.cc - ONNX import: refusals, pads, files -------===//
//
// What the operator cases (onnx_import_cases_test.cc) do not show: dilated
// and misshapen convolutions, pads that crop, opsets, node order, bad
// files, and quarry's own model files.
//
//===----------------------------------------------------------------------===//
#include "onnx_import_test_util.h"

#include "quarry/core/file_io.h"
#include "quarry/core/text.h"
#include "quarry/models/model_file.h"
#include "quarry/testing/error_of.h"

#include <filesystem>
#include <optional>

namespace quarry {
namespace {

using namespace quarry::testing;

TEST(OnnxImport, DilatedConvolutionReadsEverySecondPixel) {
  OnnxModel m;
  m.input("x", {1, 1, 5, 5}).output("y");
  m.floats("w", {1, 1, 2, 2}, {1, 2, 3, 4});
  set_ints(m.node("Conv", {"x", "w"}, {"y"}), "dilations", {2, 2});
  const Model g = import_onnx_bytes(m.bytes(), "d.onnx");
  // The kernel stays as it was written: the convolution carries the
  // dilation, no zeros are inserted between the taps.
  ASSERT_EQ(g.weights.size(), 1u);
  EXPECT_EQ(g.weights.begin()->second.shape, (Shape{1, 1, 2, 2}));
  int convs = 0;
  for (const Node &n : g.graph.nodes())
    if (n.kind == OpKind::Conv2D) {
      ++convs;
      EXPECT_EQ(ops::Conv2D::dilation(n.attrs), (Ints{2, 2}));
    }
  EXPECT_EQ(convs, 1);
  Bindings<float> b = g.weights;
  Tensor<float> x(Shape{1, 1, 5, 5}, 0.0f);
  for (int64_t i = 0; i < 25; ++i)
    x[i] = static_cast<float>(i);
  b.emplace("x", x);
  const auto y = evaluate(FloatDomain{}, g.graph, b);
  ASSERT_EQ(y[0].shape, (Shape{1, 1, 3, 3}));
  for (int64_t i = 0; i < 3; ++i)
    for (int64_t j = 0; j < 3; ++j)
      EXPECT_EQ(y[0][i * 3 + j], 1 * x[i * 5 + j] + 2 * x[i * 5 + j + 2] +
                                     3 * x[(i + 2) * 5 + j] +
                                     4 * x[(i + 2) * 5 + j + 2]);
}

// Found by fuzzing: window attributes and weights that do not fit a 2-D
// convolution are refused before they index or size anything.
TEST(OnnxImport, MisshapenConvolutionsAreRefused) {
  auto model = [](const Ints &w_shape, const Ints &strides,
                  const Ints &dilations) {
    OnnxModel m;
    m.input("x", {1, 1, 5, 5}).output("y");
    Ints w(static_cast<size_t>(Shape(w_shape).numel()), 0);
    m.floats("w", w_shape, std::vector<float>(w.begin(), w.end()));
    auto &n = m.node("Conv", {"x", "w"}, {"y"});
    n.set_name("c");
    set_ints(n, "strides", strides);
    set_ints(n, "dilations", dilations);
    return m;
  };
  auto conv = [&](const Ints &w_shape, const Ints &strides,
                  const Ints &dilations) {
    const OnnxModel m = model(w_shape, strides, dilations);
    return error_of([&] { import_onnx_bytes(m.bytes(), "c.onnx"); });
  };
  EXPECT_EQ(conv({1, 1, 3}, {1, 1}, {1, 1}),
            "c.onnx: node 'c' (Conv): the weight must be 4-D (two channel "
            "axes, kh, kw), got [1,1,3]");
  EXPECT_EQ(conv({1, 1, 3, 3}, {1}, {1, 1}),
            "c.onnx: node 'c' (Conv): strides must be 2 values from 1 to 2^31 "
            "for a 2-D window");
  EXPECT_EQ(conv({1, 1, 3, 3}, {0, 1}, {1, 1}),
            "c.onnx: node 'c' (Conv): strides must be 2 values from 1 to 2^31 "
            "for a 2-D window");
  EXPECT_EQ(conv({1, 1, 3, 3}, {1, 1}, {1, 1000000000000}),
            "c.onnx: node 'c' (Conv): dilations must be 2 values from 1 to "
            "2^31 for a 2-D convolution");
  EXPECT_EQ(conv({1, 1, 3, 3}, {1, 1}, {-2, 1}),
            "c.onnx: node 'c' (Conv): dilations must be 2 values from 1 to "
            "2^31 for a 2-D convolution");
  EXPECT_EQ(conv({1, 1, 3, 3}, {1, 1}, {0, 1}),
            "c.onnx: node 'c' (Conv): dilations must be 2 values from 1 to "
            "2^31 for a 2-D convolution");
  EXPECT_EQ(conv({1, 1, 3, 3}, {1, 1}, {1, 3}),
            "c.onnx: node 'c' (Conv): the kernel [1,1,3,3] at dilation 1,3 "
            "spans 7 elements, past the padded input [1,1,5,5]");
  EXPECT_EQ(conv({1, 1, 7, 3}, {1, 1}, {1, 1}),
            "c.onnx: node 'c' (Conv): the kernel [1,1,7,3] spans 7 elements, "
            "past the padded input [1,1,5,5]");
  // Pads no sum of sizes can hold: quarry's handler refuses them before
  // any arithmetic, and the node is kept as it is, typed by ONNX.
  OnnxModel huge = model({1, 1, 3, 3}, {1, 1}, {1, 1});
  set_ints(*huge.proto().mutable_graph()->mutable_node(0), "pads",
           {0, 0, int64_t{1} << 62, 0});
  const Model kept = import_onnx_bytes(huge.bytes(), "c.onnx");
  EXPECT_EQ(kept_operator_types(kept), std::vector<std::string>{"Conv"});
}

// Found by fuzzing: a Reshape target whose product overflows.
TEST(OnnxImport, ImpossibleReshapeTargetsAreRefused) {
  auto reshape = [](const Ints &target) {
    OnnxModel m;
    m.input("x", {2, 3}).output("y");
    m.ints("shape", target);
    m.node("Reshape", {"x", "shape"}, {"y"}).set_name("r");
    return error_of([&] { import_onnx_bytes(m.bytes(), "r.onnx"); });
  };
  EXPECT_EQ(reshape({49149, 1125899906842623, -1}),
            "r.onnx: node 'r' (Reshape): shape holds more elements than 64 "
            "bits count");
  EXPECT_EQ(reshape({-1, -1}),
            "r.onnx: node 'r' (Reshape): shape has more than one -1");
  EXPECT_EQ(reshape({-2, 3}),
            "r.onnx: node 'r' (Reshape): shape has a negative dimension -2");
}

// Export names pointwise and reduce functions after their snake-case
// names (leaky_relu: LeakyRelu); every one must pass the ONNX checker and
// come back the same.
TEST(OnnxExport, EveryPointwiseAndReduceFunctionRoundTrips) {
  std::vector<std::string> ops;
  for (std::string_view fn : ops::kPointwiseNames)
    ops.push_back("pointwise[fn=" + std::string(fn) + " alpha=0.5 beta=1]");
  for (std::string_view fn : ops::kReduceNames)
    ops.push_back("reduce[fn=" + std::string(fn) + " axes=1]");
  for (const std::string &op : ops) {
    const Graph g = parse_graph("input x: [2,3]\ny = " + op + "(x)\noutput y");
    const Model m{g, {}};
    const Model back = import_onnx_bytes(export_onnx_bytes(m), op);
    Bindings<float> b;
    Tensor<float> x(Shape{2, 3}, {0.25f, 0.5f, 0.75f, 0.3f, 0.6f, 0.9f});
    b.emplace("x", x);
    const auto want = run(g, b);
    // gelu and silu come back as the operators computing them, gelu with
    // constants of its own.
    b.insert(back.weights.begin(), back.weights.end());
    const auto got = run(back.graph, b);
    ASSERT_EQ(got[0].shape, want[0].shape) << op;
    for (int64_t k = 0; k < want[0].numel(); ++k) // acosh(0.25) is NaN
      if (!(std::isnan(got[0][k]) && std::isnan(want[0][k]))) {
        EXPECT_NEAR(got[0][k], want[0][k], 1e-6) << op;
      }
  }
}

TEST(OnnxImport, TruncatedFileIsAClearError) {
  OnnxModel m = matmul_model();
  const std::string bytes = m.bytes();
  const std::string msg = error_of([&] {
    import_onnx_bytes(bytes.substr(0, bytes.size() / 2), "cut.onnx");
  });
  EXPECT_EQ(msg.rfind("cut.onnx: ", 0), 0u) << msg;
  EXPECT_EQ(msg.find('\n'), std::string::npos);
}

// Found by fuzzing: nodes no valid model has, named as well as they can be.
TEST(OnnxImport, NodesWithoutATypeOrOutputsAreRefused) {
  OnnxModel m;
  m.input("x", {2}).output("y");
  m.node("Relu", {"x"}, {"y"});
  onnx::NodeProto &bare = *m.proto().mutable_graph()->add_node();
  bare.add_input("x");
  EXPECT_EQ(error_of([&] { import_onnx_bytes(m.bytes(), "n.onnx"); }),
            "n.onnx: node without a name or outputs (): the node has no "
            "operator type");
  bare.set_op_type("Relu");
  bare.set_name("lost");
  EXPECT_EQ(error_of([&] { import_onnx_bytes(m.bytes(), "n.onnx"); }),
            "n.onnx: node 'lost' (Relu): the node has no outputs");
}

TEST(OnnxImport, DynamicDimensionsNeedAnInputShape) {
  OnnxModel m;
  m.input("x", {0, 3}).output("y");
  m.node("Relu", {"x"}, {"y"});
  EXPECT_EQ(error_of([&] { import_onnx_bytes(m.bytes(), "d.onnx"); }),
            "d.onnx: graph input 'x' has dynamic dimension 'N'; fix it with "
            "--input-shape x=...");
  OnnxImportOptions o;
  o.input_shapes.insert(parse_input_shape("x=4x3"));
  const Model ok = import_onnx_bytes(m.bytes(), "d.onnx", o);
  EXPECT_EQ(ok.graph.type(ok.graph.outputs()[0])->shape, (Shape{4, 3}));
  EXPECT_THROW(parse_input_shape("x=4xx3"), Error);
  // Found by fuzzing: no shape at all is an unknown rank, not a scalar.
  m.proto()
      .mutable_graph()
      ->mutable_input(0)
      ->mutable_type()
      ->mutable_tensor_type()
      ->clear_shape();
  EXPECT_EQ(error_of([&] { import_onnx_bytes(m.bytes(), "d.onnx"); }),
            "d.onnx: graph input 'x' has no shape; fix it with --input-shape "
            "x=...");
}

TEST(OnnxImport, OpsetOutsideOneToTwentyThreeIsRefused) {
  for (int64_t opset : {0, 24}) {
    OnnxModel m(opset);
    m.input("x", {2}).output("y");
    m.node("Relu", {"x"}, {"y"});
    EXPECT_EQ(error_of([&] { import_onnx_bytes(m.bytes(), "o.onnx"); }),
              "o.onnx: opset " + std::to_string(opset) +
                  " is not supported (opsets 1 to 23 are)");
  }
}

TEST(OnnxImport, NodesImportInTheOrderTheirReadsAsk) {
  // Written consumer first, as some exporters do; ONNX Runtime sorts them.
  OnnxModel m;
  m.input("x", {2, 3}).output("y");
  m.node("Relu", {"n"}, {"y"});
  m.node("Neg", {"x"}, {"n"});
  const Model g = import_onnx_bytes(m.bytes(), "order.onnx");
  const Bindings<float> b = bind_variables(g.graph, g.weights, 1);
  const Tensor<float> y = run(g.graph, b).at(0);
  for (int64_t i = 0; i < y.numel(); ++i)
    EXPECT_EQ(y[i], std::max(0.0f, -b.at("x")[i]));
  // A cycle is named by a node on it, not one after it.
  OnnxModel c;
  c.input("x", {2}).output("y");
  c.node("Relu", {"b"}, {"y"});
  c.node("Add", {"x", "b"}, {"a"});
  c.node("Neg", {"a"}, {"b"});
  EXPECT_EQ(error_of([&] { import_onnx_bytes(c.bytes(), "cycle.onnx"); }),
            "cycle.onnx: node 'Neg_b' (Neg): it reads what it computes, "
            "through a cycle of the graph");
}

TEST(OnnxImport, DropoutThatDropsNothingIsAnIdentityWithAFullMask) {
  for (const bool training : {false, true}) {
    OnnxModel m(13);
    m.input("x", {2, 3}).output("y").output("mask");
    m.proto()
        .mutable_graph()
        ->mutable_output(1)
        ->mutable_type()
        ->mutable_tensor_type()
        ->set_elem_type(onnx::TensorProto::BOOL);
    m.floats("ratio", {}, {0.0f});
    auto *t = m.proto().mutable_graph()->add_initializer();
    t->set_name("training");
    t->set_data_type(onnx::TensorProto::BOOL);
    t->add_int32_data(training ? 1 : 0);
    m.node("Dropout", {"x", "ratio", "training"}, {"y", "mask"});
    const Model g = import_onnx_bytes(m.bytes(), "dropout.onnx");
    const Bindings<float> b = bind_variables(g.graph, g.weights, 1);
    const auto out = run(g.graph, b);
    ASSERT_EQ(out.size(), 2u);
    EXPECT_EQ(out[0].data, b.at("x").data);
    EXPECT_EQ(out[1].shape, (Shape{2, 3}));
    for (float v : out[1].data)
      EXPECT_EQ(v, 1.0f);
  }
  OnnxModel m(13);
  m.input("x", {2, 3}).output("y").floats("ratio", {}, {0.25f});
  auto *t = m.proto().mutable_graph()->add_initializer();
  t->set_name("training");
  t->set_data_type(onnx::TensorProto::BOOL);
  t->add_int32_data(1);
  m.node("Dropout", {"x", "ratio", "training"}, {"y"});
  // What drops elements at random is kept, not imported as an identity.
  const Model g = import_onnx_bytes(m.bytes(), "train.onnx");
  EXPECT_EQ(kept_operator_types(g), std::vector<std::string>{"Dropout"});
}

TEST(OnnxImport, BeforeOpsetSevenBroadcastingIsAskedForAndAligned) {
  OnnxModel m(6);
  m.input("x", {2, 3, 4}).input("b", {3}).output("y");
  auto &add = m.node("Add", {"x", "b"}, {"y"});
  set_int(add, "broadcast", 1);
  set_int(add, "axis", 1);
  const Model g = import_onnx_bytes(m.bytes(), "o6.onnx");
  Bindings<float> b;
  b.emplace("x", Tensor<float>(Shape{2, 3, 4}, 1.0f));
  b.emplace("b", Tensor<float>(Shape{3}, {10, 20, 30}));
  const auto y = evaluate(FloatDomain{}, g.graph, b);
  ASSERT_EQ(y[0].shape, (Shape{2, 3, 4}));
  EXPECT_EQ(y[0][0], 11);
  EXPECT_EQ(y[0][4], 21);
  EXPECT_EQ(y[0][23], 31);
}

// Pad with negative pads (as NASNet-A's ZeroPad2d(-1, 1, -1, 1) exports):
// x holds 1, 2, ..., and each expected result is worked out by hand.
Model pad_model(int64_t opset, const Ints &shape, const Ints &pads,
                const std::string &mode = "constant",
                std::optional<float> value = std::nullopt) {
  OnnxModel m(opset);
  m.input("x", shape).output("y");
  std::vector<std::string> in = {"x"};
  if (opset >= 11) {
    m.ints("p", pads);
    in.push_back("p");
    if (value) {
      m.floats("v", {}, {*value});
      in.push_back("v");
    }
  }
  auto &n = m.node("Pad", in, {"y"});
  if (opset < 11) {
    set_ints(n, "pads", pads);
    if (value)
      set_float(n, "value", *value);
  }
  if (mode != "constant")
    set_string(n, "mode", mode);
  return import_onnx_bytes(m.bytes(), "pad.onnx");
}

/// What `g` computes for x = 1, 2, ... of `shape`.
Tensor<float> padded_count(const Model &g, const Ints &shape) {
  Tensor<float> x(Shape(shape), 0.0f);
  for (int64_t i = 0; i < x.numel(); ++i)
    x[i] = static_cast<float>(i + 1);
  Bindings<float> b = g.weights;
  b.emplace("x", x);
  return evaluate(FloatDomain{}, g.graph, b).at(0);
}

int count_of(const Model &g, OpKind kind) {
  int n = 0;
  for (const Node &node : g.graph.nodes())
    n += node.kind == kind;
  return n;
}

TEST(OnnxImport, NegativePadsAloneAreASlice) {
  // [1,1,3,4]: rows 1..2 and columns 0..1 are left.
  const Ints shape = {1, 1, 3, 4};
  const Model g = pad_model(13, shape, {0, 0, -1, 0, 0, 0, 0, -2});
  EXPECT_EQ(count_of(g, OpKind::Slice), 1);
  EXPECT_EQ(count_of(g, OpKind::Pad), 0);
  const Tensor<float> y = padded_count(g, shape);
  EXPECT_EQ(y.shape, (Shape{1, 1, 2, 2}));
  EXPECT_EQ(y.data, (std::vector<float>{5, 6, 9, 10}));
}

TEST(OnnxImport, NegativeAndPositivePadsOfAnAxisCropThenPad) {
  // NASNet-A's crop of the first row and column, and a zero row and
  // column after: [[5,6,0],[8,9,0],[0,0,0]].
  const Ints shape = {1, 1, 3, 3};
  const Model g = pad_model(13, shape, {0, 0, -1, -1, 0, 0, 1, 1});
  EXPECT_EQ(count_of(g, OpKind::Slice), 1);
  EXPECT_EQ(count_of(g, OpKind::Pad), 1);
  const Tensor<float> y = padded_count(g, shape);
  EXPECT_EQ(y.shape, (Shape{1, 1, 3, 3}));
  EXPECT_EQ(y.data, (std::vector<float>{5, 6, 0, 8, 9, 0, 0, 0, 0}));
  // The other way round, with a constant: one before, one cropped after.
  const Model c =
      pad_model(13, shape, {0, 0, 1, 0, 0, 0, -1, 0}, "constant", 2.5f);
  const Tensor<float> z = padded_count(c, shape);
  EXPECT_EQ(z.shape, (Shape{1, 1, 3, 3}));
  EXPECT_EQ(z.data, (std::vector<float>{2.5f, 2.5f, 2.5f, 1, 2, 3, 4, 5, 6}));
}

TEST(OnnxImport, NegativePadsInTheAttributeOfOpsetTen) {
  const Ints shape = {3, 3};
  const Model g = pad_model(10, shape, {-1, 1, 0, -2}, "constant", -1.0f);
  const Tensor<float> y = padded_count(g, shape);
  // Rows 1..2, column 0, a column of -1 before it.
  EXPECT_EQ(y.shape, (Shape{2, 2}));
  EXPECT_EQ(y.data, (std::vector<float>{-1, 4, -1, 7}));
}

TEST(OnnxImport, ReflectAndEdgePadTheCroppedTensor) {
  // ONNX crops first: reflect mirrors 1,2,3 of 1..5 cropped by 2 after.
  const Ints shape = {5};
  EXPECT_EQ(padded_count(pad_model(13, shape, {2, -2}, "reflect"), shape).data,
            (std::vector<float>{3, 2, 1, 2, 3}));
  EXPECT_EQ(padded_count(pad_model(13, shape, {-1, 2}, "edge"), shape).data,
            (std::vector<float>{2, 3, 4, 5, 5, 5}));
  // Reflecting 3 of the 3 elements left needs 4, and ONNX's reference
  // refuses it (mirroring before the crop would give 4,3,2,1,2,3): the
  // node is kept.
  const Model g = pad_model(13, shape, {3, -2}, "reflect");
  EXPECT_EQ(kept_operator_types(g), std::vector<std::string>{"Pad"});
  EXPECT_EQ(unrunnable_reason(g),
            "node 'Pad_y' (Pad) is kept from the imported model as it is "
            "(pad: reflect pads 3,0 need more than 3 elements on axis 0); "
            "quarry cannot run it");
}

TEST(OnnxImport, PadsThatCropAWholeAxisAreKept) {
  const Model g = pad_model(13, {2, 3}, {0, -2, 0, -1});
  EXPECT_EQ(kept_operator_types(g), std::vector<std::string>{"Pad"});
  EXPECT_EQ(unrunnable_reason(g),
            "node 'Pad_y' (Pad) is kept from the imported model as it is "
            "(pads -2,-1 remove all 3 elements of axis 1 (quarry holds no "
            "empty tensors)); quarry cannot run it");
}

TEST(OnnxImport, FloatOnlyOperatorsRefuseTheField) {
  const Model m = import_onnx_bytes(unary("Softmax").bytes(), "s.onnx");
  EXPECT_TRUE(
      op_info(m.graph.node(m.graph.outputs()[0].node).kind).traits.float_only);
}

TEST(ModelFile, SavedModelLoadsWithItsWeights) {
  const Model m = import_onnx_bytes(matmul_model().bytes(), "mm.onnx");
  const std::string dir = ::testing::TempDir();
  const std::string path = dir + "/mm.qg";
  save_model(m, path);
  const Model back = load_graph_any(path);
  EXPECT_TRUE(structurally_equal(m.graph, back.graph));
  EXPECT_EQ(back.weights, m.weights);
  std::filesystem::remove(path);
  std::filesystem::remove(weights_path(path));
}

TEST(ModelFile, WeightsAreWrittenAsOneGraphProto) {
  // Written a tensor at a time: the bytes must be those of the message
  // serialized whole, a large tensor's length taking several bytes.
  Model m;
  const ValueRef big = m.graph.weight("big", Shape{300});
  const ValueRef small = m.graph.weight("small", Shape{2});
  m.graph.mark_output(m.graph.add1(OpKind::Concat, {big, small}));
  Tensor<float> t(Shape{300}, 0.0f);
  for (int64_t i = 0; i < t.numel(); ++i)
    t[i] = static_cast<float>(i) / 7;
  m.weights.emplace("big", t);
  m.weights.emplace("small", Tensor<float>(Shape{2}, 1.5f));
  const std::string path = ::testing::TempDir() + "/w.qg";
  save_model(m, path);
  const std::string bytes = read_file_bytes(weights_path(path));
  onnx::GraphProto whole;
  ASSERT_TRUE(whole.ParseFromString(bytes));
  EXPECT_EQ(whole.name(), "quarry weights");
  ASSERT_EQ(whole.initializer_size(), 2);
  EXPECT_EQ(whole.initializer(0).name(), "big");
  EXPECT_EQ(whole.SerializeAsString(), bytes);
  EXPECT_EQ(load_graph_any(path).weights, m.weights);
  std::filesystem::remove(path);
  std::filesystem::remove(weights_path(path));
}

TEST(OnnxImport, GraphsAsOnnxRuntimeTakesThem) {
  // An initializer that is also a graph input (its default value), an
  // unused initializer, an empty optional input, and value_info for an
  // intermediate: what ONNX Runtime accepts.
  OnnxModel m(13);
  m.input("x", {2, 3}).input("bias", {3}).output("y");
  m.floats("bias", {3}, {1, 2, 3}).floats("unused", {2}, {5, 6});
  m.floats("lo", {}, {0.0f});
  m.node("Add", {"x", "bias"}, {"s"});
  m.node("Clip", {"s", "lo", ""}, {"y"});
  OnnxModel::value(m.proto().mutable_graph()->add_value_info(), "s", {2, 3});
  const Model g = import_onnx_bytes(m.bytes(), "ort.onnx");
  const Bindings<float> b = bind_variables(g.graph, g.weights, 2);
  const Tensor<float> y = run(g.graph, b).at(0);
  const Tensor<float> &x = b.at("x");
  for (int64_t i = 0; i < y.numel(); ++i)
    EXPECT_EQ(y[i], std::max(0.0f, x[i] + static_cast<float>(i % 3 + 1)));
  // The initializer's value is the bias; only x is fed.
  int inputs = 0;
  for (const Node &n : g.graph.nodes())
    inputs += n.kind == OpKind::Input;
  EXPECT_EQ(inputs, 1);
}

TEST(OnnxImport, AFloat16InitializerOfTheWrongLengthIsRefused) {
  OnnxModel m(13);
  m.input("x", {3}).output("y");
  auto *t = m.proto().mutable_graph()->add_initializer();
  t->set_name("w");
  t->set_data_type(onnx::TensorProto::FLOAT16);
  t->add_dims(3);
  t->set_raw_data(std::string("\x00\x3c\x00\x3c\x00", 5)); // 2.5 values
  m.node("Mul", {"x", "w"}, {"y"});
  const std::string why =
      error_of([&] { import_onnx_bytes(m.bytes(), "half.onnx"); });
  EXPECT_NE(why.find("'w' has 2 values for shape [3]"), std::string::npos)
      << why;
}

} // namespace
} // namespace quarry
