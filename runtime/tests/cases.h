//===- cases.h - Operators and graphs every backend must agree on -*- C++
//-*-===//
//
// Text graphs (docs/TEXT_FORMAT.md) over many shapes, strides, paddings and
// group counts, shared by the cpu and cuda differential tests.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/core/float_domain.h"
#include "quarry/core/text.h"
#include "quarry/runtime/backend.h"
#include "quarry/runtime/reference_backend.h"
#include "quarry/runtime/run_inputs.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

namespace quarry::runtime::testing {

struct Case {
  std::string name;
  std::string text;
};

inline std::string shape(std::initializer_list<int64_t> d) {
  return Shape(d).str();
}

/// One case per operator configuration.
inline std::vector<Case> operator_cases() {
  std::vector<Case> cs;
  // conv2d: groups, kernels, strides, paddings, activations, odd sizes;
  // some with weights as graph inputs (not laid out ahead).
  int i = 0;
  for (int64_t groups : {1, 2, 4})
    for (int64_t k : {1, 3, 5})
      for (int64_t s : {1, 2})
        for (const char *pad : {"same", "valid"}) {
          const int64_t n = 1 + i % 2, c = 2 * groups * (1 + i % 2),
                        co = 2 * groups * (1 + (i / 2) % 2), h = 7 + i % 4,
                        w = 9 - i % 3;
          const char *act = (i % 3 == 0)   ? "relu"
                            : (i % 3 == 1) ? "none"
                                           : "tanh";
          const char *wkind = i % 5 == 4 ? "input" : "weight";
          cs.push_back({"conv_g" + std::to_string(groups) + "_k" +
                            std::to_string(k) + "_s" + std::to_string(s) + "_" +
                            pad,
                        "input x: " + shape({n, c, h, w}) + "\n" + wkind +
                            " w: " + shape({co, c / groups, k, k}) + "\n" +
                            "y = conv2d[s=" + std::to_string(s) + "," +
                            std::to_string(s) + " pad=" + pad + " act=" + act +
                            "](x, w)\noutput y\n"});
          ++i;
        }
  cs.push_back({"conv_rect_kernel",
                "input x: [1,3,8,6]\nweight w: [5,3,3,1]\n"
                "y = conv2d[s=2,1 pad=same](x, w)\noutput y\n"});
  cs.push_back({"conv_sigmoid_depthwise",
                "input x: [1,6,5,5]\nweight w: [6,1,3,3]\n"
                "y = conv2d[act=sigmoid](x, w)\noutput y\n"});
  // matmul: 2-D and batched, with activations; weights and inputs.
  for (const char *act : {"none", "relu", "sigmoid"}) {
    cs.push_back({std::string("matmul_2d_") + act,
                  "input a: [5,7]\nweight b: [7,3]\ny = matmul[act=" +
                      std::string(act) + "](a, b)\noutput y\n"});
    cs.push_back({std::string("matmul_batched_") + act,
                  "input a: [2,3,4,6]\ninput b: [2,3,6,5]\ny = matmul[act=" +
                      std::string(act) + "](a, b)\noutput y\n"});
  }
  // pooling.
  for (const char *op : {"pool2d_avg", "pool2d_max"})
    for (int64_t k : {1, 2, 3})
      for (int64_t s : {1, 2})
        for (const char *pad : {"same", "valid"})
          cs.push_back({std::string(op) + "_k" + std::to_string(k) + "_s" +
                            std::to_string(s) + "_" + pad,
                        "input x: [2,3,7,6]\ny = " + std::string(op) +
                            "[k=" + std::to_string(k) + "," +
                            std::to_string(k) + " s=" + std::to_string(s) +
                            "," + std::to_string(s) + " pad=" + pad +
                            "](x)\noutput y\n"});
  // elementwise, scalar, data movement.
  for (const char *op : {"relu", "sigmoid", "tanh"})
    cs.push_back(
        {op, "input x: [2,3,4,5]\ny = " + std::string(op) + "(x)\noutput y\n"});
  for (const char *op : {"ewadd", "ewmul"})
    cs.push_back({op, "input x: [3,4,5]\ninput y: [3,4,5]\nz = " +
                          std::string(op) + "(x, y)\noutput z\n"});
  cs.push_back({"scalar_mul", "input x: [2,3,4]\ninput s: []\n"
                              "y = scalar_mul(x, s)\noutput y\n"});
  cs.push_back({"batchnorm",
                "input x: [2,4,3,3]\nweight g: [4]\nweight b: [4]\n"
                "weight m: [4]\nweight v: [4]\n"
                "y = batchnorm[eps=0.001](x, g, b, m, v)\noutput y\n"});
  for (int axis = 0; axis < 3; ++axis)
    cs.push_back({"concat3_axis" + std::to_string(axis),
                  "input a: [2,3,4]\ninput b: [2,3,4]\ninput c: [2,3,4]\n"
                  "y = concat[axis=" +
                      std::to_string(axis) + "](a, b, c)\noutput y\n"});
  for (int axis : {-1, 0, 1})
    cs.push_back({axis < 0 ? std::string("softmax_last_axis")
                           : "softmax_axis" + std::to_string(axis),
                  "input x: [2,5,3]\ny = softmax[axis=" + std::to_string(axis) +
                      "](x)\noutput y\n"});
  // A last axis long enough for oneDNN's softmax; a short one, and a
  // middle one, over enough lines that they are split among threads.
  cs.push_back({"softmax_long_last_axis",
                "input x: [3,20]\ny = softmax[axis=-1](x)\noutput y\n"});
  cs.push_back({"softmax_short_axis_many_rows",
                "input x: [4,8192,2]\ny = softmax[axis=2](x)\noutput y\n"});
  cs.push_back({"softmax_middle_axis_many_columns",
                "input x: [2,16,4096]\ny = softmax[axis=1](x)\noutput y\n"});
  cs.push_back({"split_sizes", "input x: [2,7,3]\n"
                               "a, b, c = split[axis=1 sizes=2,4,1](x)\n"
                               "output a, b, c\n"});
  cs.push_back({"split_concat", "input x: [4,3]\ninput y: [4,5]\n"
                                "a, b = split[axis=1](concat[axis=1](x, y))\n"
                                "output b, a\n"});
  cs.push_back(
      {"transpose_2d", "input x: [3,5]\ny = transpose(x)\noutput y\n"});
  cs.push_back({"transpose_4d", "input x: [2,3,4,5]\n"
                                "y = transpose[perm=0,2,3,1](x)\noutput y\n"});
  cs.push_back({"reshape", "input x: [2,3,4]\n"
                           "y = reshape[shape=4,-1](x)\noutput y\n"});
  return cs;
}

/// Whole graphs: chains, branches, reuse of buffers, folded weights.
inline std::vector<Case> graph_cases() {
  return {
      {"bottleneck",
       "input x: [1,16,8,8]\n"
       "weight w1: [4,16,1,1]\nweight w2: [4,4,3,3]\nweight w3: [16,4,1,1]\n"
       "weight g: [16]\nweight b: [16]\nweight m: [16]\nweight v: [16]\n"
       "y1 = conv2d[act=relu](x, w1)\n"
       "y2 = conv2d[act=relu](y1, w2)\n"
       "y3 = batchnorm(conv2d(y2, w3), g, b, m, v)\n"
       "y = relu(ewadd(y3, x))\noutput y\n"},
      {"merged_convs_folded_weights",
       "input x: [1,4,6,6]\nweight w1: [3,4,3,3]\nweight w2: [5,4,1,1]\n"
       "y = conv2d[act=relu](x, concat[axis=0](w1, enlarge(w2)))\n"
       "a, b = split[axis=1 sizes=3,5](y)\n"
       "output a, b\n"},
      {"inception_branches",
       "input x: [2,8,9,9]\nweight w1: [4,8,1,1]\nweight w3: [6,8,3,3]\n"
       "a = conv2d(x, w1)\nb = conv2d[act=relu](x, w3)\n"
       "c = pool2d_max[k=3,3 s=1,1](x)\n"
       "y = concat[axis=1](a, b, c)\n"
       "z = pool2d_avg[k=2,2 s=2,2 pad=valid](y)\noutput z, a\n"},
      {"attention_block",
       "input x: [6,8]\nweight wq: [8,8]\nweight wk: [8,8]\nweight wv: [8,8]\n"
       "q = matmul(x, wq)\nk = matmul(x, wk)\nv = matmul(x, wv)\n"
       "s = sigmoid(matmul(q, transpose(k)))\n"
       "o = matmul(s, v)\ny = ewadd(ewmul(o, tanh(o)), x)\noutput y\n"},
      {"grouped_conv_chain_scaled",
       "input x: [1,8,10,10]\ninput s: []\nweight w1: [8,2,3,3]\n"
       "weight w2: [8,4,3,3]\n"
       "y = conv2d[s=2,2](conv2d[act=relu](x, w1), w2)\n"
       "z = reshape[shape=1,-1](scalar_mul(y, s))\noutput z\n"},
  };
}

/// The largest relative error allowed against the reference: float sums in
/// another order differ in the last bits, scaled by the reduction length.
inline constexpr double kTolerance = 2e-5;

/// Runs `text` on `b` and on the reference with the same random values.
/// The same outputs to the bit (NaN included, which == would call unequal).
inline void expect_bitwise_equal(const std::vector<Tensor<float>> &got,
                                 const std::vector<Tensor<float>> &want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t o = 0; o < got.size(); ++o) {
    ASSERT_EQ(got[o].data.size(), want[o].data.size()) << "output " << o;
    EXPECT_EQ(std::memcmp(got[o].data.data(), want[o].data.data(),
                          sizeof(float) * got[o].data.size()),
              0)
        << "output " << o;
  }
}

/// Largest relative error of the prepared `e` of `g` against the
/// reference semantics, both run on `values`.
inline double error_against_reference(Executable &e, const Graph &g,
                                      const Bindings<float> &values) {
  return max_relative_error(
      run_once(e, values),
      run_once(*make_reference_backend()->prepare(g, values), values));
}

inline void expect_matches_reference(Backend &b, Backend &reference,
                                     const Case &c,
                                     double tolerance = kTolerance) {
  SCOPED_TRACE(c.name + "\n" + c.text);
  const Graph g = parse_graph(c.text, c.name);
  const Bindings<float> values = random_run_bindings(g, 7);
  const auto want = run_once(*reference.prepare(g, values), values);
  const auto got = run_once(*b.prepare(g, values), values);
  EXPECT_LE(max_relative_error(got, want), tolerance);
}

} // namespace quarry::runtime::testing
