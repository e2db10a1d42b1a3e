//===- onnx_import_cases_test.cc - Operators import and round-trip ---===//
//
// Every case writes a small ONNX model with the protobuf API and states the
// same computation in quarry's text form. The imported graph, the text
// graph and the graph read back from quarry's own export must evaluate
// equal on the same inputs and weights.
//
//===----------------------------------------------------------------------===//
#include "onnx_import_test_util.h"

#include "quarry/core/text.h"
#include "quarry/models/model_file.h"

#include <functional>

namespace quarry {
namespace {

using namespace quarry::testing;

struct Case {
  std::string name;
  std::function<OnnxModel()> onnx;
  std::string reference; ///< quarry text over the same input/weight names
};

// Test names then show the case, not the object's bytes (which hold
// addresses and so differ from run to run).
void PrintTo(const Case &c, std::ostream *os) { *os << c.name; }

std::vector<Case> cases() {
  std::vector<Case> c;
  c.push_back(
      {"Relu", [] { return unary("Relu"); }, "input x\ny = relu(x)\noutput y"});
  c.push_back({"Sigmoid", [] { return unary("Sigmoid"); },
               "input x\ny = sigmoid(x)\noutput y"});
  c.push_back(
      {"Tanh", [] { return unary("Tanh"); }, "input x\ny = tanh(x)\noutput y"});
  c.push_back({"LeakyRelu",
               [] {
                 auto m = unary("LeakyRelu");
                 return m;
               },
               "input x\ny = pointwise[fn=leaky_relu alpha=0.01](x)\n"
               "output y"});
  c.push_back({"HardSigmoid", [] { return unary("HardSigmoid"); },
               "input x\ny = pointwise[fn=hard_sigmoid alpha=0.2 beta=0.5](x)"
               "\noutput y"});
  c.push_back({"HardSwish",
               [] {
                 OnnxModel m(14);
                 m.input("x", {2, 3}).output("y");
                 m.node("HardSwish", {"x"}, {"y"});
                 return m;
               },
               "input x\ny = pointwise[fn=hard_swish](x)\noutput y"});
  c.push_back({"Clip",
               [] {
                 OnnxModel m;
                 m.input("x", {2, 3}).output("y");
                 m.floats("lo", {}, {-0.25f}).floats("hi", {}, {0.5f});
                 m.node("Clip", {"x", "lo", "hi"}, {"y"});
                 return m;
               },
               "input x\ny = pointwise[fn=clip alpha=-0.25 beta=0.5](x)\n"
               "output y"});
  c.push_back({"SqrtOfSquare",
               [] {
                 OnnxModel m;
                 m.input("x", {2, 3}).output("y");
                 m.node("Mul", {"x", "x"}, {"sq"});
                 m.node("Sqrt", {"sq"}, {"y"});
                 return m;
               },
               "input x\ny = pointwise[fn=sqrt](ewmul(x, x))\noutput y"});
  c.push_back({"AddEqualShapes",
               [] {
                 return binary("Add", {2, 3});
               },
               "input x\ninput y\nz = ewadd(x, y)\noutput z"});
  c.push_back({"AddBroadcast", [] { return binary("Add", {3}); },
               "input x\ninput y\nz = broadcast[fn=add](x, y)\noutput z"});
  c.push_back({"Sub",
               [] {
                 return binary("Sub", {2, 1});
               },
               "input x\ninput y\nz = broadcast[fn=sub](x, y)\noutput z"});
  c.push_back({"MulEqualShapes",
               [] {
                 return binary("Mul", {2, 3});
               },
               "input x\ninput y\nz = ewmul(x, y)\noutput z"});
  c.push_back({"Div",
               [] {
                 return binary("Div", {2, 3});
               },
               "input x\ninput y\nz = broadcast[fn=div](x, y)\noutput z"});
  c.push_back({"PowConstant",
               [] {
                 OnnxModel m;
                 m.input("x", {2, 3}).output("z").floats("e", {}, {2.0f});
                 m.node("Pow", {"x", "e"}, {"z"});
                 return m;
               },
               "input x\nweight e\nz = broadcast[fn=pow](x, e)\noutput z"});
  c.push_back({"MatMul", matmul_model,
               "input x\nweight w\ny = matmul(x, w)\noutput y"});
  c.push_back({"MatMulRank3",
               [] {
                 OnnxModel m;
                 m.input("x", {2, 2, 3}).input("w", {3, 4}).output("y");
                 m.node("MatMul", {"x", "w"}, {"y"});
                 return m;
               },
               "input x\ninput w\ny = reshape[shape=2,2,4](matmul("
               "reshape[shape=4,3](x), w))\noutput y"});
  c.push_back({"Gemm",
               [] {
                 OnnxModel m;
                 m.input("a", {2, 3}).input("b", {4, 3}).input("c", {4});
                 m.output("y");
                 auto &n = m.node("Gemm", {"a", "b", "c"}, {"y"});
                 set_int(n, "transB", 1);
                 set_float(n, "alpha", 2.0f);
                 set_float(n, "beta", 0.5f);
                 return m;
               },
               "input a\ninput b\ninput c\nweight alpha: []\n"
               "weight alpha_2: []\n"
               "y = broadcast[fn=add](scalar_mul(matmul(a, transpose(b)), "
               "alpha), scalar_mul(c, alpha_2))\noutput y"});
  c.push_back({"ConvBiasSame",
               [] {
                 OnnxModel m;
                 m.input("x", {1, 2, 5, 5}).input("w", {4, 2, 3, 3});
                 m.input("b", {4}).output("y");
                 auto &n = m.node("Conv", {"x", "w", "b"}, {"y"});
                 set_ints(n, "pads", {1, 1, 1, 1});
                 set_ints(n, "strides", {2, 2});
                 return m;
               },
               "input x\ninput w\ninput b\ny = broadcast[fn=add](conv2d[s=2,2]"
               "(x, w), reshape[shape=4,1,1](b))\noutput y"});
  c.push_back({"ConvDilatedSame",
               [] {
                 OnnxModel m;
                 m.input("x", {1, 2, 9, 9}).input("w", {4, 2, 3, 3});
                 m.output("y");
                 auto &n = m.node("Conv", {"x", "w"}, {"y"});
                 set_ints(n, "pads", {2, 3, 2, 3});
                 set_ints(n, "dilations", {2, 3});
                 return m;
               },
               "input x\ninput w\ny = conv2d[d=2,3](x, w)\noutput y"});
  c.push_back({"ConvDilatedStridedGroupedValid",
               [] {
                 OnnxModel m;
                 m.input("x", {1, 4, 9, 8}).input("w", {6, 2, 2, 3});
                 m.output("y");
                 auto &n = m.node("Conv", {"x", "w"}, {"y"});
                 set_ints(n, "strides", {2, 1});
                 set_ints(n, "dilations", {3, 2});
                 set_int(n, "group", 2);
                 return m;
               },
               "input x\ninput w\ny = conv2d[s=2,1 pad=valid d=3,2](x, w)\n"
               "output y"});
  c.push_back({"LayerNormalizationIsOneOperator",
               [] {
                 OnnxModel m(17);
                 m.input("x", {2, 3, 4}).input("s", {3, 4}).input("b", {3, 4});
                 m.output("y");
                 auto &n = m.node("LayerNormalization", {"x", "s", "b"}, {"y"});
                 set_int(n, "axis", 1);
                 set_float(n, "epsilon", 0.001f);
                 return m;
               },
               "input x\ninput s\ninput b\n"
               "y = layer_norm[axis=1 eps=0.0010000000474974513](x, s, b)\n"
               "output y"});
  c.push_back({"ConvAsymmetricPadsGrouped",
               [] {
                 OnnxModel m;
                 m.input("x", {1, 4, 5, 5}).input("w", {4, 2, 2, 2});
                 m.output("y");
                 auto &n = m.node("Conv", {"x", "w"}, {"y"});
                 set_ints(n, "pads", {1, 0, 0, 1});
                 set_int(n, "group", 2);
                 return m;
               },
               "input x\ninput w\ny = conv2d[pad=valid](pad[pads=0,0,1,0,0,0,"
               "0,1](x), w)\noutput y"});
  c.push_back({"ConvTranspose",
               [] {
                 OnnxModel m;
                 m.input("x", {1, 2, 3, 3}).input("w", {2, 3, 3, 3});
                 m.output("y");
                 auto &n = m.node("ConvTranspose", {"x", "w"}, {"y"});
                 set_ints(n, "strides", {2, 2});
                 set_ints(n, "pads", {1, 1, 1, 1});
                 set_ints(n, "output_padding", {1, 1});
                 return m;
               },
               "input x\ninput w\ny = conv_transpose[s=2,2 pads=1,1,1,1 "
               "out_pad=1,1](x, w)\noutput y"});
  c.push_back(
      {"BatchNormalization",
       [] {
         OnnxModel m;
         m.input("x", {2, 3, 2, 2}).output("y");
         m.floats("s", {3}, {1, 2, 3}).floats("b", {3}, {0, 1, 2});
         m.floats("mu", {3}, {0.1f, 0.2f, 0.3f});
         m.floats("var", {3}, {1, 2, 4});
         m.node("BatchNormalization", {"x", "s", "b", "mu", "var"}, {"y"});
         return m;
       },
       "input x\nweight s\nweight b\nweight mu\nweight var\n"
       "y = batchnorm[eps=9.999999747378752e-06](x, s, b, mu, var)\n"
       "output y"});
  c.push_back(
      {"ConcatSplit",
       [] {
         OnnxModel m;
         m.input("x", {2, 3}).input("y", {2, 2}).output("a").output("b");
         m.ints("sizes", {1, 4});
         set_int(m.node("Concat", {"x", "y"}, {"c"}), "axis", -1);
         set_int(m.node("Split", {"c", "sizes"}, {"a", "b"}), "axis", 1);
         return m;
       },
       "input x\ninput y\na, b = split[axis=1 sizes=1,4](concat"
       "[axis=1](x, y))\noutput a, b"});
  c.push_back({"Slice",
               [] {
                 OnnxModel m;
                 m.input("x", {3, 6}).output("y");
                 m.ints("st", {1}).ints("en", {INT64_MAX}).ints("ax", {1});
                 m.ints("sp", {2});
                 m.node("Slice", {"x", "st", "en", "ax", "sp"}, {"y"});
                 return m;
               },
               "input x\ny = slice[starts=1 ends=1000 axes=1 steps=2](x)\n"
               "output y"});
  c.push_back({"TransposeReshapeFlatten",
               [] {
                 OnnxModel m;
                 m.input("x", {2, 3, 4}).output("y");
                 m.ints("shape", {0, -1});
                 set_ints(m.node("Transpose", {"x"}, {"t"}), "perm", {2, 0, 1});
                 m.node("Reshape", {"t", "shape"}, {"r"});
                 set_int(m.node("Flatten", {"r"}, {"y"}), "axis", 0);
                 return m;
               },
               "input x\ny = reshape[shape=1,24](reshape[shape=4,6]("
               "transpose[perm=2,0,1](x)))\noutput y"});
  c.push_back({"SqueezeUnsqueeze",
               [] {
                 OnnxModel m;
                 m.input("x", {2, 1, 3}).output("y");
                 m.ints("a1", {1}).ints("a2", {0, 3});
                 m.node("Squeeze", {"x", "a1"}, {"s"});
                 m.node("Unsqueeze", {"s", "a2"}, {"y"});
                 return m;
               },
               "input x\ny = reshape[shape=1,2,3,1](reshape[shape=2,3](x))\n"
               "output y"});
  c.push_back({"MaxPoolSame",
               [] {
                 OnnxModel m;
                 m.input("x", {1, 2, 6, 6}).output("y");
                 auto &n = m.node("MaxPool", {"x"}, {"y"});
                 set_ints(n, "kernel_shape", {3, 3});
                 set_ints(n, "strides", {2, 2});
                 set_ints(n, "pads", {1, 1, 1, 1});
                 return m;
               },
               "input x\ny = pool2d_max[k=3,3 s=2,2](x)\noutput y"});
  c.push_back({"AveragePoolExcludingPads",
               [] {
                 OnnxModel m;
                 m.input("x", {1, 2, 5, 5}).output("y");
                 auto &n = m.node("AveragePool", {"x"}, {"y"});
                 set_ints(n, "kernel_shape", {3, 3});
                 set_ints(n, "pads", {1, 1, 1, 1});
                 return m;
               },
               "input x\ny = pool2d_explicit[fn=avg k=3,3 pads=1,1,1,1](x)\n"
               "output y"});
  c.push_back({"MaxPoolDilatedCeilMode",
               [] {
                 OnnxModel m;
                 m.input("x", {1, 2, 6, 6}).output("y");
                 auto &n = m.node("MaxPool", {"x"}, {"y"});
                 set_ints(n, "kernel_shape", {2, 2});
                 set_ints(n, "strides", {2, 2});
                 set_ints(n, "dilations", {2, 2});
                 set_int(n, "ceil_mode", 1);
                 return m;
               },
               "input x\ny = pool2d_explicit[fn=max k=2,2 s=2,2 d=2,2 "
               "ceil=1](x)\noutput y"});
  c.push_back({"GlobalAveragePool",
               [] {
                 return unary("GlobalAveragePool", {1, 3, 4, 5});
               },
               "input x\ny = pool2d_avg[k=4,5 pad=valid](x)\noutput y"});
  c.push_back({"ReduceMean",
               [] {
                 OnnxModel m;
                 m.input("x", {2, 3, 4}).output("y");
                 auto &n = m.node("ReduceMean", {"x"}, {"y"});
                 set_ints(n, "axes", {1, 2});
                 set_int(n, "keepdims", 0);
                 return m;
               },
               "input x\ny = reduce_mean[axes=1,2 keepdims=0](x)\noutput y"});
  c.push_back({"ReduceMax",
               [] {
                 OnnxModel m;
                 m.input("x", {2, 3, 4}).output("y");
                 set_ints(m.node("ReduceMax", {"x"}, {"y"}), "axes", {-1});
                 return m;
               },
               "input x\ny = reduce[fn=max axes=-1](x)\noutput y"});
  c.push_back(
      {"ReduceSumAxesInput",
       [] {
         OnnxModel m;
         m.input("x", {2, 3, 4}).output("y").ints("axes", {0, 2});
         set_int(m.node("ReduceSum", {"x", "axes"}, {"y"}), "keepdims", 0);
         return m;
       },
       "input x\ny = reduce[fn=sum axes=0,2 keepdims=0](x)\noutput y"});
  c.push_back({"Selu",
               [] {
                 OnnxModel m;
                 m.input("x", {2, 3}).output("y");
                 auto &n = m.node("Selu", {"x"}, {"y"});
                 set_float(n, "alpha", 2);
                 set_float(n, "gamma", 3);
                 return m;
               },
               "input x\ny = pointwise[fn=selu alpha=2 beta=3](x)\noutput y"});
  c.push_back({"LogSoftmax",
               [] {
                 return unary("LogSoftmax", {2, 3});
               },
               "input x\nd = broadcast[fn=sub](x, reduce[fn=max axes=1](x))\n"
               "y = broadcast[fn=sub](d, reduce[fn=log_sum_exp axes=1](d))\n"
               "output y"});
  c.push_back(
      {"Conv1D",
       [] {
         OnnxModel m;
         m.input("x", {1, 2, 7}).input("w", {3, 2, 3}).output("y");
         auto &n = m.node("Conv", {"x", "w"}, {"y"});
         set_ints(n, "strides", {2});
         set_ints(n, "pads", {1, 1});
         return m;
       },
       "input x\ninput w\ny = reshape[shape=1,3,4](conv2d[s=1,2 "
       "pad=same](reshape[shape=1,2,1,7](x), reshape[shape=3,2,1,3](w)))"
       "\noutput y"});
  c.push_back(
      {"DepthToSpace",
       [] {
         OnnxModel m;
         m.input("x", {1, 4, 2, 3}).output("y");
         set_int(m.node("DepthToSpace", {"x"}, {"y"}), "blocksize", 2);
         return m;
       },
       "input x\ny = reshape[shape=1,1,4,6](transpose[perm=0,3,4,1,5,2]("
       "reshape[shape=1,2,2,1,2,3](x)))\noutput y"});
  c.push_back({"Softmax13",
               [] {
                 return unary("Softmax", {2, 3, 4});
               },
               "input x\ny = softmax[axis=-1](x)\noutput y"});
  c.push_back({"Softmax11CoercesTo2D",
               [] {
                 OnnxModel m(11);
                 m.input("x", {2, 3, 4}).output("y");
                 m.node("Softmax", {"x"}, {"y"});
                 return m;
               },
               "input x\ny = reshape[shape=2,3,4](softmax[axis=1](reshape"
               "[shape=2,12](x)))\noutput y"});
  c.push_back({"Hardmax13",
               [] {
                 OnnxModel m;
                 m.input("x", {2, 3, 4}).output("y");
                 set_int(m.node("Hardmax", {"x"}, {"y"}), "axis", 1);
                 return m;
               },
               "input x\ny = hardmax[axis=1](x)\noutput y"});
  c.push_back({"Hardmax11CoercesTo2D",
               [] {
                 OnnxModel m(11);
                 m.input("x", {2, 3, 4}).output("y");
                 m.node("Hardmax", {"x"}, {"y"});
                 return m;
               },
               "input x\ny = reshape[shape=2,3,4](hardmax[axis=1](reshape"
               "[shape=2,12](x)))\noutput y"});
  c.push_back({"GridSample16",
               [] {
                 OnnxModel m(16);
                 m.input("x", {1, 2, 3, 4}).input("g", {1, 2, 2, 2});
                 m.output("y");
                 auto &n = m.node("GridSample", {"x", "g"}, {"y"});
                 set_string(n, "mode", "bicubic");
                 set_string(n, "padding_mode", "reflection");
                 set_int(n, "align_corners", 1);
                 return m;
               },
               "input x\ninput g\ny = grid_sample[mode=bicubic pad=reflection "
               "align=1](x, g)\noutput y"});
  c.push_back({"ResizeNearestScales",
               [] {
                 OnnxModel m;
                 m.input("x", {1, 1, 2, 3}).output("y");
                 m.floats("roi", {0}, {}).floats("sc", {4}, {1, 1, 2, 2});
                 m.node("Resize", {"x", "roi", "sc"}, {"y"});
                 return m;
               },
               "input x\ny = resize[shape=1,1,4,6](x)\noutput y"});
  c.push_back(
      {"ResizeLinearSizes",
       [] {
         OnnxModel m;
         m.input("x", {1, 1, 2, 3}).output("y").ints("sz", {1, 1, 3, 5});
         auto &n = m.node("Resize", {"x", "", "", "sz"}, {"y"});
         set_string(n, "mode", "linear");
         set_string(n, "coordinate_transformation_mode", "align_corners");
         return m;
       },
       "input x\ny = resize[shape=1,1,3,5 mode=linear "
       "coord=align_corners](x)\noutput y"});
  c.push_back({"CastIdentityDropoutConstant",
               [] {
                 OnnxModel m;
                 m.input("x", {2, 3}).output("y");
                 auto &k = m.node("Constant", {}, {"k"});
                 auto *a = k.add_attribute();
                 a->set_name("value");
                 a->set_type(onnx::AttributeProto::TENSOR);
                 a->mutable_t()->set_data_type(onnx::TensorProto::FLOAT);
                 a->mutable_t()->add_dims(3);
                 for (float v : {1.0f, 2.0f, 3.0f})
                   a->mutable_t()->add_float_data(v);
                 set_int(m.node("Cast", {"x"}, {"c"}), "to",
                         onnx::TensorProto::FLOAT);
                 m.node("Identity", {"c"}, {"i"});
                 m.node("Dropout", {"i"}, {"d"});
                 m.node("Mul", {"d", "k"}, {"y"});
                 return m;
               },
               "input x\nweight k\ny = broadcast[fn=mul](x, k)\noutput y"});
  c.push_back(
      {"UpsampleOfOpset7",
       [] {
         OnnxModel m(7);
         m.input("x", {1, 1, 2, 2}).output("y");
         auto &n = m.node("Upsample", {"x"}, {"y"});
         auto *a = n.add_attribute();
         a->set_name("scales");
         a->set_type(onnx::AttributeProto::FLOATS);
         for (float v : {1.0f, 1.0f, 2.0f, 3.0f})
           a->add_floats(v);
         return m;
       },
       "input x\ny = resize[shape=1,1,4,6 mode=nearest coord=asymmetric "
       "nearest=floor](x)\noutput y"});
  c.push_back(
      {"UpsampleLinearOfOpset9",
       [] {
         OnnxModel m(9);
         m.input("x", {1, 1, 2, 2}).output("y");
         m.floats("s", {4}, {1, 1, 2, 2});
         set_string(m.node("Upsample", {"x", "s"}, {"y"}), "mode", "linear");
         return m;
       },
       "input x\ny = resize[shape=1,1,4,4 mode=linear "
       "coord=asymmetric](x)\noutput y"});
  c.push_back({"PadConstant",
               [] {
                 OnnxModel m;
                 m.input("x", {2, 3}).output("y").ints("p", {0, 1, 1, 0});
                 m.node("Pad", {"x", "p"}, {"y"});
                 return m;
               },
               "input x\ny = pad[pads=0,1,1,0](x)\noutput y"});
  c.push_back({"PadNegative",
               [] {
                 OnnxModel m;
                 m.input("x", {1, 1, 3, 3}).output("y");
                 m.ints("p", {0, 0, -1, -1, 0, 0, 1, 1});
                 m.node("Pad", {"x", "p"}, {"y"});
                 return m;
               },
               "input x\ny = pad[pads=0,0,0,0,0,0,1,1](slice[starts=1,1 "
               "ends=3,3 axes=2,3 steps=1,1](x))\noutput y"});
  return c;
}

class OnnxCase : public ::testing::TestWithParam<Case> {};

TEST_P(OnnxCase, ImportsEvaluatesAndRoundTrips) {
  const Case &c = GetParam();
  const Model imported = import_onnx_bytes(c.onnx().bytes(), c.name + ".onnx");
  const Bindings<float> b = bind_variables(imported.graph, imported.weights, 5);
  const auto got = run(imported.graph, b);
  const Graph reference = parse_graph(c.reference, c.name);
  expect_close(got, run(reference, b));
  // Export (checked by onnx::checker) and import again: the same values.
  const Model back = import_onnx_bytes(export_onnx_bytes(imported), "back");
  expect_close(run(back.graph, bind_variables(back.graph, back.weights, 5)),
               got);
}

INSTANTIATE_TEST_SUITE_P(Ops, OnnxCase, ::testing::ValuesIn(cases()),
                         [](const auto &info) { return info.param.name; });

} // namespace
} // namespace quarry
