//===- onnx_late_opsets_test.cc - Models of opsets 18 to 22 ---------------===//
//
// Each case writes an operator as a later opset defines it and the same
// computation as opset 17 writes it; both import and evaluate equal, and
// the export keeps the later opset, in its forms, and evaluates equal too.
//
//===----------------------------------------------------------------------===//
#include "onnx_import_test_util.h"

#include "quarry/core/evaluate.h"
#include "quarry/core/float_domain.h"
#include "quarry/core/weights.h"
#include "quarry/models/onnx.h"
#include "quarry/testing/error_of.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>

namespace quarry {
namespace {

using namespace quarry::testing;

std::vector<Tensor<float>> evaluated(const Model &m) {
  return evaluate(FloatDomain{}, m.graph,
                  bind_variables(m.graph, m.weights, 3));
}

int64_t onnx_opset(const onnx::ModelProto &m) {
  for (const auto &op : m.opset_import())
    if (op.domain().empty() || op.domain() == "ai.onnx")
      return op.version();
  return 0;
}

const onnx::AttributeProto *attr(const onnx::NodeProto &n, const char *name) {
  for (const auto &a : n.attribute())
    if (a.name() == name)
      return &a;
  return nullptr;
}

struct Case {
  std::string name;
  std::function<OnnxModel()> late;    ///< at opset 18 or later
  std::function<OnnxModel()> opset17; ///< the same computation at 17
};
void PrintTo(const Case &c, std::ostream *os) { *os << c.name; }

std::vector<Case> cases() {
  std::vector<Case> c;
  c.push_back(
      {"ReduceMeanAxesInput",
       [] {
         OnnxModel m(18);
         m.input("x", {2, 3, 4}).output("y").ints("axes", {-2});
         set_int(m.node("ReduceMean", {"x", "axes"}, {"y"}), "keepdims", 0);
         return m;
       },
       [] {
         OnnxModel m(17);
         m.input("x", {2, 3, 4}).output("y");
         auto &n = m.node("ReduceMean", {"x"}, {"y"});
         set_ints(n, "axes", {-2});
         set_int(n, "keepdims", 0);
         return m;
       }});
  c.push_back({"ReduceMaxOverAllAndNoop",
               [] {
                 OnnxModel m(20);
                 m.input("x", {2, 3}).output("y").output("z");
                 m.node("ReduceMax", {"x"}, {"y"});
                 set_int(m.node("ReduceL2", {"x"}, {"z"}),
                         "noop_with_empty_axes", 1);
                 return m;
               },
               [] {
                 OnnxModel m(17);
                 m.input("x", {2, 3}).output("y").output("z");
                 m.node("ReduceMax", {"x"}, {"y"});
                 m.node("Identity", {"x"}, {"z"});
                 return m;
               }});
  c.push_back(
      {"SplitNumOutputs",
       [] {
         OnnxModel m(18);
         m.input("x", {2, 7}).output("a").output("b").output("c");
         auto &n = m.node("Split", {"x"}, {"a", "b", "c"});
         set_int(n, "axis", 1);
         set_int(n, "num_outputs", 3);
         return m;
       },
       [] {
         OnnxModel m(17);
         m.input("x", {2, 7}).output("a").output("b").output("c");
         m.ints("s", {3, 3, 1});
         set_int(m.node("Split", {"x", "s"}, {"a", "b", "c"}), "axis", 1);
         return m;
       }});
  c.push_back({"PadAxes",
               [] {
                 OnnxModel m(19);
                 m.input("x", {2, 3}).output("y");
                 m.ints("p", {1, 2}).ints("axes", {-1});
                 m.node("Pad", {"x", "p", "", "axes"}, {"y"});
                 return m;
               },
               [] {
                 OnnxModel m(17);
                 m.input("x", {2, 3}).output("y").ints("p", {0, 1, 0, 2});
                 m.node("Pad", {"x", "p"}, {"y"});
                 return m;
               }});
  c.push_back(
      {"ResizeAxesScales",
       [] {
         OnnxModel m(18);
         m.input("x", {1, 2, 2, 3}).output("y");
         m.floats("s", {2}, {2.0f, 2.0f});
         auto &n = m.node("Resize", {"x", "", "s"}, {"y"});
         set_string(n, "mode", "linear");
         set_ints(n, "axes", {2, 3});
         set_int(n, "antialias", 1); // upsampling: no effect
         return m;
       },
       [] {
         OnnxModel m(17);
         m.input("x", {1, 2, 2, 3}).output("y");
         m.floats("s", {4}, {1.0f, 1.0f, 2.0f, 2.0f});
         set_string(m.node("Resize", {"x", "", "s"}, {"y"}), "mode", "linear");
         return m;
       }});
  c.push_back({"ResizeKeepAspectRatio",
               [] {
                 OnnxModel m(18);
                 m.input("x", {1, 1, 2, 3}).output("y").ints("size", {4, 9});
                 auto &n = m.node("Resize", {"x", "", "", "size"}, {"y"});
                 set_ints(n, "axes", {2, 3});
                 set_string(n, "keep_aspect_ratio_policy", "not_larger");
                 return m;
               },
               [] {
                 OnnxModel m(17);
                 m.input("x", {1, 1, 2, 3}).output("y");
                 m.ints("size", {1, 1, 4, 6});
                 m.node("Resize", {"x", "", "", "size"}, {"y"});
                 return m;
               }});
  c.push_back({"Mish",
               [] {
                 OnnxModel m(18);
                 m.input("x", {2, 5}).output("y");
                 m.node("Mish", {"x"}, {"y"});
                 return m;
               },
               [] {
                 OnnxModel m(17);
                 m.input("x", {2, 5}).output("y");
                 m.node("Softplus", {"x"}, {"s"});
                 m.node("Tanh", {"s"}, {"t"});
                 m.node("Mul", {"x", "t"}, {"y"});
                 return m;
               }});
  for (const std::string approximate : {"none", "tanh"})
    c.push_back({"Gelu_" + approximate,
                 [approximate] {
                   OnnxModel m(20);
                   m.input("x", {3, 4}).output("y");
                   set_string(m.node("Gelu", {"x"}, {"y"}), "approximate",
                              approximate);
                   return m;
                 },
                 [approximate] {
                   OnnxModel m(17);
                   m.input("x", {3, 4}).output("y");
                   m.floats("half", {}, {0.5f}).floats("one", {}, {1.0f});
                   if (approximate == "none") {
                     m.floats("r", {}, {static_cast<float>(M_SQRT1_2)});
                     m.node("Mul", {"x", "r"}, {"xr"});
                     m.node("Erf", {"xr"}, {"e"});
                   } else {
                     m.floats("k", {}, {0.044715f});
                     m.floats("c", {}, {std::sqrt(2.0f / float(M_PI))});
                     m.node("Mul", {"x", "x"}, {"x2"});
                     m.node("Mul", {"x2", "x"}, {"x3"});
                     m.node("Mul", {"x3", "k"}, {"kx3"});
                     m.node("Add", {"x", "kx3"}, {"in"});
                     m.node("Mul", {"in", "c"}, {"z"});
                     m.node("Tanh", {"z"}, {"e"});
                   }
                   m.node("Add", {"e", "one"}, {"e1"});
                   m.node("Mul", {"x", "e1"}, {"p"});
                   m.node("Mul", {"p", "half"}, {"y"});
                   return m;
                 }});
  c.push_back(
      {"GridSampleLinear",
       [] {
         OnnxModel m(20);
         m.input("x", {1, 2, 3, 4}).input("g", {1, 2, 2, 2}).output("y");
         set_string(m.node("GridSample", {"x", "g"}, {"y"}), "mode", "linear");
         return m;
       },
       [] {
         OnnxModel m(16);
         m.input("x", {1, 2, 3, 4}).input("g", {1, 2, 2, 2}).output("y");
         set_string(m.node("GridSample", {"x", "g"}, {"y"}), "mode",
                    "bilinear");
         return m;
       }});
  c.push_back({"CastSaturate",
               [] {
                 OnnxModel m(19);
                 m.input("x", {2, 3}).output("y");
                 auto &n = m.node("Cast", {"x"}, {"y"});
                 set_int(n, "to", onnx::TensorProto::FLOAT);
                 set_int(n, "saturate", 1);
                 return m;
               },
               [] {
                 OnnxModel m(17);
                 m.input("x", {2, 3}).output("y");
                 set_int(m.node("Cast", {"x"}, {"y"}), "to",
                         onnx::TensorProto::FLOAT);
                 return m;
               }});
  c.push_back({"Opset23Relu",
               [] {
                 OnnxModel m(23);
                 m.input("x", {2, 3}).output("y");
                 m.node("Relu", {"x"}, {"y"});
                 return m;
               },
               [] {
                 OnnxModel m(17);
                 m.input("x", {2, 3}).output("y");
                 m.node("Relu", {"x"}, {"y"});
                 return m;
               }});
  c.push_back({"RMSNormalization",
               [] {
                 OnnxModel m(23);
                 m.input("x", {2, 3, 4}).input("s", {3, 4}).output("y");
                 auto &n = m.node("RMSNormalization", {"x", "s"}, {"y"});
                 set_int(n, "axis", -2);
                 set_float(n, "epsilon", 1e-3f);
                 return m;
               },
               [] {
                 OnnxModel m(17);
                 m.input("x", {2, 3, 4}).input("s", {3, 4}).output("y");
                 m.floats("eps", {}, {1e-3f});
                 m.node("Mul", {"x", "x"}, {"x2"});
                 auto &mean = m.node("ReduceMean", {"x2"}, {"mean"});
                 set_ints(mean, "axes", {1, 2});
                 m.node("Add", {"mean", "eps"}, {"var"});
                 m.node("Sqrt", {"var"}, {"rms"});
                 m.node("Div", {"x", "rms"}, {"normal"});
                 m.node("Mul", {"normal", "s"}, {"y"});
                 return m;
               }});
  c.push_back(
      {"Attention4D",
       [] {
         OnnxModel m(23);
         m.input("q", {1, 2, 3, 4})
             .input("k", {1, 2, 5, 4})
             .input("v", {1, 2, 5, 6})
             .output("y");
         m.node("Attention", {"q", "k", "v"}, {"y"});
         return m;
       },
       [] {
         OnnxModel m(17);
         m.input("q", {1, 2, 3, 4})
             .input("k", {1, 2, 5, 4})
             .input("v", {1, 2, 5, 6})
             .output("y");
         m.floats("scale", {}, {0.5f}); // 1 / sqrt(4)
         set_ints(m.node("Transpose", {"k"}, {"kt"}), "perm", {0, 1, 3, 2});
         m.node("MatMul", {"q", "kt"}, {"qk"});
         m.node("Mul", {"qk", "scale"}, {"s"});
         set_int(m.node("Softmax", {"s"}, {"p"}), "axis", -1);
         m.node("MatMul", {"p", "v"}, {"y"});
         return m;
       }});
  return c;
}

class LateOpset : public ::testing::TestWithParam<Case> {};

TEST_P(LateOpset, MeansWhatItsOpset17FormMeans) {
  const Case &c = GetParam();
  const std::string late_bytes = c.late().bytes();
  const Model late = import_onnx_bytes(late_bytes, c.name + ".onnx");
  const Model early = import_onnx_bytes(c.opset17().bytes(), c.name + "17");
  const auto got = evaluated(late);
  expect_close(got, evaluated(early), 1e-5);
  // Written back at its own opset, in that opset's forms.
  const std::string out = export_onnx_bytes(late);
  onnx::ModelProto in_proto, out_proto;
  ASSERT_TRUE(in_proto.ParseFromString(late_bytes));
  ASSERT_TRUE(out_proto.ParseFromString(out));
  EXPECT_EQ(onnx_opset(out_proto), onnx_opset(in_proto));
  for (const auto &n : out_proto.graph().node()) {
    if (n.op_type().rfind("Reduce", 0) == 0) {
      EXPECT_EQ(attr(n, "axes"), nullptr) << n.op_type() << " " << n.name();
    }
    if (n.op_type() == "GridSample" && attr(n, "mode")) {
      EXPECT_EQ(attr(n, "mode")->s(), "linear");
    }
  }
  EXPECT_EQ(interface_differences(late_bytes, out), std::vector<std::string>{});
  expect_close(evaluated(import_onnx_bytes(out, "back.onnx")), got, 1e-5);
}

INSTANTIATE_TEST_SUITE_P(Ops, LateOpset, ::testing::ValuesIn(cases()),
                         [](const auto &info) { return info.param.name; });

/// GroupNormalization: per group scale and bias at 18, per channel at 21.
TEST(LateOpsetGroupNormalization, NormalizesEachGroupThenScales) {
  for (const int64_t opset : {18, 21}) {
    const int64_t n = 2, c = 4, groups = 2, hw = 3;
    const int64_t params = opset >= 21 ? c : groups;
    std::vector<float> scale, bias;
    for (int64_t i = 0; i < params; ++i) {
      scale.push_back(0.5f + static_cast<float>(i));
      bias.push_back(-0.25f * static_cast<float>(i));
    }
    OnnxModel m(opset);
    m.input("x", {n, c, hw}).output("y");
    m.floats("scale", {params}, scale).floats("bias", {params}, bias);
    auto &node = m.node("GroupNormalization", {"x", "scale", "bias"}, {"y"});
    set_int(node, "num_groups", groups);
    set_float(node, "epsilon", 1e-3f);
    const Model g = import_onnx_bytes(m.bytes(), "gn.onnx");
    const Bindings<float> b = bind_variables(g.graph, g.weights, 3);
    const Tensor<float> &x = b.at("x");
    const Tensor<float> y = evaluated(g).at(0);
    const int64_t per_group = c / groups * hw;
    for (int64_t s = 0; s < n; ++s)
      for (int64_t grp = 0; grp < groups; ++grp) {
        const int64_t at = (s * groups + grp) * per_group;
        double mean = 0, var = 0;
        for (int64_t k = 0; k < per_group; ++k)
          mean += x[at + k];
        mean /= per_group;
        for (int64_t k = 0; k < per_group; ++k)
          var += (x[at + k] - mean) * (x[at + k] - mean);
        var /= per_group;
        for (int64_t k = 0; k < per_group; ++k) {
          const int64_t ch = grp * (c / groups) + k / hw;
          const int64_t p = opset >= 21 ? ch : grp;
          const double want =
              (x[at + k] - mean) / std::sqrt(var + 1e-3) * scale[p] + bias[p];
          ASSERT_NEAR(y[at + k], want, 1e-5) << "opset " << opset;
        }
      }
    const std::string out = export_onnx_bytes(g);
    onnx::ModelProto back;
    ASSERT_TRUE(back.ParseFromString(out));
    EXPECT_EQ(onnx_opset(back), opset);
  }
}

/// Scaled dot-product attention computed directly: q [b, hq, s, d], k
/// [b, hk, t, d], v [b, hk, t, e] row-major, query head h reading key head
/// h / (hq / hk); `bias` [s, t] added to the scores, or causal.
std::vector<float>
attention_reference(const std::vector<float> &q, const std::vector<float> &k,
                    const std::vector<float> &v, int64_t b, int64_t hq,
                    int64_t hk, int64_t s, int64_t t, int64_t d, int64_t e,
                    double scale, bool causal, const std::vector<float> &bias) {
  std::vector<float> y(static_cast<size_t>(b * hq * s * e), 0.0f);
  for (int64_t n = 0; n < b; ++n)
    for (int64_t h = 0; h < hq; ++h) {
      const int64_t g = h / (hq / hk);
      for (int64_t i = 0; i < s; ++i) {
        std::vector<double> w(static_cast<size_t>(t));
        double top = -INFINITY;
        for (int64_t j = 0; j < t; ++j) {
          double dot = 0;
          for (int64_t c = 0; c < d; ++c)
            dot += double(q[((n * hq + h) * s + i) * d + c]) *
                   k[((n * hk + g) * t + j) * d + c];
          w[j] = dot * scale + (bias.empty() ? 0.0 : bias[i * t + j]) +
                 (causal && j > i ? -INFINITY : 0.0);
          top = std::max(top, w[j]);
        }
        double sum = 0;
        for (double &x : w)
          sum += (x = std::exp(x - top));
        for (int64_t j = 0; j < t; ++j)
          for (int64_t c = 0; c < e; ++c)
            y[((n * hq + h) * s + i) * e + c] += static_cast<float>(
                w[j] / sum * v[((n * hk + g) * t + j) * e + c]);
      }
    }
  return y;
}

/// [b, seq, heads * size] (row-major) as [b, heads, seq, size].
std::vector<float> split_heads(const std::vector<float> &x, int64_t b,
                               int64_t seq, int64_t heads, int64_t size) {
  std::vector<float> out(x.size());
  for (int64_t n = 0; n < b; ++n)
    for (int64_t i = 0; i < seq; ++i)
      for (int64_t h = 0; h < heads; ++h)
        for (int64_t c = 0; c < size; ++c)
          out[((n * heads + h) * seq + i) * size + c] =
              x[((n * seq + i) * heads + h) * size + c];
  return out;
}

TEST(LateOpsetAttention, GroupedHeadsOf3DInputsWithCausalAndBoolMasks) {
  // Four query heads of size 2 reading two key and value heads (sizes 2
  // and 3), hidden axes of 8, 4 and 6; three queries, three keys.
  for (bool masked : {false, true}) {
    OnnxModel m(23);
    m.input("q", {1, 3, 8}).input("k", {1, 3, 4}).input("v", {1, 3, 6});
    m.output("y");
    std::vector<std::string> in{"q", "k", "v"};
    // Keys 0 and 2 only, for every query.
    const std::vector<int64_t> keep{1, 0, 1, 1, 0, 1, 1, 0, 1};
    if (masked) {
      auto *t = m.proto().mutable_graph()->add_initializer();
      t->set_name("mask");
      t->set_data_type(onnx::TensorProto::BOOL);
      t->add_dims(3);
      t->add_dims(3);
      for (int64_t x : keep)
        t->add_int32_data(static_cast<int32_t>(x));
      in.push_back("mask");
    }
    auto &n = m.node("Attention", in, {"y"});
    set_int(n, "q_num_heads", 4);
    set_int(n, "kv_num_heads", 2);
    set_int(n, "is_causal", masked ? 0 : 1);
    set_float(n, "scale", 0.7f);
    const Model g = import_onnx_bytes(m.bytes(), "attention.onnx");
    EXPECT_TRUE(kept_operator_types(g).empty());
    const Bindings<float> b = bind_variables(g.graph, g.weights, 5);
    const Tensor<float> y = evaluate(FloatDomain{}, g.graph, b).at(0);
    ASSERT_EQ(y.shape, (Shape{1, 3, 12}));
    std::vector<float> bias;
    if (masked)
      for (int64_t x : keep)
        bias.push_back(x ? 0.0f : -INFINITY);
    const auto want =
        attention_reference(split_heads(b.at("q").data, 1, 3, 4, 2),
                            split_heads(b.at("k").data, 1, 3, 2, 2),
                            split_heads(b.at("v").data, 1, 3, 2, 3), 1, 4, 2, 3,
                            3, 2, 3, 0.7f, !masked, bias);
    // y is [1, 3, 4 * 3]: back to heads to compare.
    const auto got = split_heads(y.data, 1, 3, 4, 3);
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < want.size(); ++i)
      EXPECT_NEAR(got[i], want[i], 1e-5)
          << (masked ? "masked " : "causal ") << i;
  }
}

TEST(LateOpsetAttention, PastKeysComeFirstAndThePresentIsOutput) {
  OnnxModel m(23);
  m.input("q", {1, 1, 2, 2}).input("k", {1, 1, 1, 2}).input("v", {1, 1, 1, 2});
  m.input("pk", {1, 1, 2, 2}).input("pv", {1, 1, 2, 2});
  m.output("y").output("present_k");
  m.node("Attention", {"q", "k", "v", "", "pk", "pv"}, {"y", "present_k"});
  const Model g = import_onnx_bytes(m.bytes(), "past.onnx");
  const Bindings<float> b = bind_variables(g.graph, g.weights, 6);
  const auto out = evaluate(FloatDomain{}, g.graph, b);
  ASSERT_EQ(out.size(), 2u);
  std::vector<float> keys = b.at("pk").data, values = b.at("pv").data;
  keys.insert(keys.end(), b.at("k").data.begin(), b.at("k").data.end());
  values.insert(values.end(), b.at("v").data.begin(), b.at("v").data.end());
  EXPECT_EQ(out[1].data, keys);
  const auto want = attention_reference(b.at("q").data, keys, values, 1, 1, 1,
                                        2, 3, 2, 2, M_SQRT1_2, false, {});
  for (size_t i = 0; i < want.size(); ++i)
    EXPECT_NEAR(out[0].data[i], want[i], 1e-5) << i;
}

TEST(LateOpset, WhatOpset17CannotSayIsRefusedNamingTheNode) {
  auto refusal = [](OnnxModel m) {
    return error_of([&] { import_onnx_bytes(m.bytes(), "late.onnx"); });
  };
  {
    // What ONNX 1.12's checker would say of a schema it has.
    OnnxModel m(18);
    m.input("x", {2, 3}).input("z", {2, 3}).output("y");
    m.node("Mish", {"x", "z"}, {"y", "w"});
    EXPECT_EQ(refusal(m), "late.onnx: node 'Mish_y' (Mish): takes 1 inputs "
                          "and at most 1 outputs, not 2 and 2");
  }
  {
    OnnxModel m(18);
    m.input("x", {2, 3}).output("y").floats("axes", {1}, {1.0f});
    m.node("ReduceMax", {"x", "axes"}, {"y"});
    EXPECT_EQ(refusal(m), "late.onnx: node 'ReduceMax_y' (ReduceMax): axes "
                          "(input 1) must be int64, not FLOAT");
  }
  {
    OnnxModel m(21);
    m.input("x", {1, 4, 3}).input("s", {2}).input("b", {4}).output("y");
    set_int(m.node("GroupNormalization", {"x", "s", "b"}, {"y"}), "num_groups",
            2);
    EXPECT_EQ(refusal(m), "late.onnx: node 'GroupNormalization_y' "
                          "(GroupNormalization): scale [2] must hold one "
                          "value per channel, [4]");
  }
  {
    OnnxModel m(19);
    m.input("x", {2, 3}).output("y").ints("p", {1, 1, 1, 1});
    set_string(m.node("Pad", {"x", "p"}, {"y"}), "mode", "wrap");
    EXPECT_EQ(refusal(m), "late.onnx: node 'Pad_y' (Pad): mode 'wrap' (opset "
                          "19) is not supported");
  }
  {
    OnnxModel m(18);
    m.input("x", {1, 1, 4, 4}).output("y");
    m.floats("s", {4}, {1.0f, 1.0f, 0.5f, 0.5f});
    auto &n = m.node("Resize", {"x", "", "s"}, {"y"});
    set_string(n, "mode", "linear");
    set_int(n, "antialias", 1);
    EXPECT_EQ(refusal(m), "late.onnx: node 'Resize_y' (Resize): antialias "
                          "(opset 18) is not supported where it shrinks an "
                          "axis");
  }
  {
    OnnxModel m(18);
    m.input("x", {1, 4, 4}).input("s", {2}, onnx::TensorProto::INT64);
    m.input("b", {2}, onnx::TensorProto::INT64).output("y");
    m.node("Col2Im", {"x", "s", "b"}, {"y"});
    EXPECT_EQ(refusal(m), "late.onnx: node 'Col2Im_y' (Col2Im): quarry does "
                          "not have Col2Im (opset 18)");
  }
  {
    OnnxModel m(18);
    m.input("x", {2, 5}).output("a").output("b");
    set_int(m.node("Split", {"x"}, {"a", "b"}), "num_outputs", 3);
    EXPECT_EQ(refusal(m), "late.onnx: node 'Split_a' (Split): num_outputs is "
                          "3 but it has 2 outputs");
  }
  {
    OnnxModel m(19);
    m.input("x", {1, 1, 5, 5}).output("y");
    auto &n = m.node("AveragePool", {"x"}, {"y"});
    set_ints(n, "kernel_shape", {2, 2});
    set_ints(n, "dilations", {2, 2});
    EXPECT_EQ(refusal(m), "late.onnx: node 'AveragePool_y' (AveragePool): "
                          "dilations other than its default is not supported");
  }
  {
    // Malformed later nodes: a missing attribute, an unknown value.
    OnnxModel m(18);
    m.input("x", {2, 4, 3}).output("y");
    m.floats("s", {2}, {1, 1}).floats("b", {2}, {0, 0});
    m.node("GroupNormalization", {"x", "s", "b"}, {"y"});
    EXPECT_EQ(refusal(m), "late.onnx: node 'GroupNormalization_y' "
                          "(GroupNormalization): num_groups 0 does not divide "
                          "4 channels");
  }
  {
    OnnxModel m(20);
    m.input("x", {2, 3}).output("y");
    set_string(m.node("Gelu", {"x"}, {"y"}), "approximate", "fast");
    EXPECT_EQ(refusal(m), "late.onnx: node 'Gelu_y' (Gelu): approximate "
                          "'fast' is not none or tanh");
  }
  {
    OnnxModel m(18);
    m.input("x", {2, 3})
        .output("y")
        .input("axes", {1}, onnx::TensorProto::INT64);
    m.node("ReduceMean", {"x", "axes"}, {"y"});
    EXPECT_EQ(refusal(m), "late.onnx: node 'ReduceMean_y' (ReduceMean): axes "
                          "(input 1) must be a constant (an initializer or "
                          "Constant node)");
  }
}

} // namespace
} // namespace quarry
