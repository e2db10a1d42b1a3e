//===- onnx_3d_test.cc - 3-D windows against their definitions ------------===//
//
// 3-D convolution and pooling import as 2-D operators, one per tap of the
// kernel's depth, and global pooling as a reduction over the volume; each
// case is compared with the window operator's definition evaluated
// directly.
//
//===----------------------------------------------------------------------===//
#include "onnx_builder.h"

#include "quarry/core/evaluate.h"
#include "quarry/core/float_domain.h"
#include "quarry/core/weights.h"
#include "quarry/models/onnx.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace quarry {
namespace {

using namespace quarry::testing;

struct Window {
  Ints k, s{1, 1, 1}, d{1, 1, 1}, p{0, 0, 0, 0, 0, 0};
  int64_t group = 1;
};

/// The output extent of axis `a` (floor rounding).
int64_t out_extent(const Window &w, int64_t in, int a) {
  return (in + w.p[a] + w.p[a + 3] - ((w.k[a] - 1) * w.d[a] + 1)) / w.s[a] + 1;
}

/// Conv (`weight` given) or pooling (max, or mean counting padding when
/// `count_pad`) by definition over [n, c, d, h, w].
Tensor<float> by_definition(const Tensor<float> &x, const Window &w,
                            const Tensor<float> *weight, bool max,
                            bool count_pad, int64_t out_channels) {
  const Shape &sx = x.shape;
  const int64_t od = out_extent(w, sx[2], 0), oh = out_extent(w, sx[3], 1),
                ow = out_extent(w, sx[4], 2);
  Tensor<float> y(Shape{sx[0], out_channels, od, oh, ow}, 0.0f);
  const int64_t cg = sx[1] / w.group, og = out_channels / w.group;
  int64_t at = 0;
  for (int64_t n = 0; n < sx[0]; ++n)
    for (int64_t o = 0; o < out_channels; ++o)
      for (int64_t i = 0; i < od; ++i)
        for (int64_t j = 0; j < oh; ++j)
          for (int64_t l = 0; l < ow; ++l) {
            double acc = max ? -INFINITY : 0;
            int64_t count = 0;
            const int64_t from = weight ? (o / og) * cg : o,
                          to = weight ? from + cg : o + 1;
            for (int64_t c = from; c < to; ++c)
              for (int64_t a = 0; a < w.k[0]; ++a)
                for (int64_t b = 0; b < w.k[1]; ++b)
                  for (int64_t e = 0; e < w.k[2]; ++e) {
                    const int64_t zd = i * w.s[0] + a * w.d[0] - w.p[0],
                                  zh = j * w.s[1] + b * w.d[1] - w.p[1],
                                  zw = l * w.s[2] + e * w.d[2] - w.p[2];
                    const bool inside = zd >= 0 && zd < sx[2] && zh >= 0 &&
                                        zh < sx[3] && zw >= 0 && zw < sx[4];
                    count += inside || count_pad;
                    if (!inside)
                      continue;
                    const float v =
                        x[(((n * sx[1] + c) * sx[2] + zd) * sx[3] + zh) *
                              sx[4] +
                          zw];
                    if (weight)
                      acc += v * (*weight)[(((o * cg + c - from) * w.k[0] + a) *
                                                w.k[1] +
                                            b) *
                                               w.k[2] +
                                           e];
                    else if (max)
                      acc = std::max(acc, double(v));
                    else
                      acc += v;
                  }
            y[at++] = static_cast<float>(
                weight || max ? acc : acc / std::max<int64_t>(count, 1));
          }
  return y;
}

void window_attrs(onnx::NodeProto &n, const Window &w, bool kernel) {
  if (kernel)
    set_ints(n, "kernel_shape", w.k);
  set_ints(n, "strides", w.s);
  if (n.op_type() != "AveragePool") // its dilations came at opset 19
    set_ints(n, "dilations", w.d);
  set_ints(n, "pads", w.p);
}

void expect_near(const Tensor<float> &got, const Tensor<float> &want) {
  ASSERT_EQ(got.shape, want.shape);
  for (int64_t i = 0; i < want.numel(); ++i)
    ASSERT_NEAR(got[i], want[i], 1e-5 * (1 + std::fabs(want[i]))) << i;
}

TEST(Onnx3d, ConvolutionIsOneTwoDConvolutionPerDepthTap) {
  const Window cases[] = {
      {{3, 2, 2}, {1, 1, 1}, {1, 1, 1}, {1, 0, 1, 1, 1, 0}, 1},
      {{2, 3, 1}, {2, 1, 2}, {2, 1, 1}, {0, 1, 0, 1, 1, 0}, 2}};
  for (const Window &w : cases) {
    const Ints xs{2, 4, 5, 4, 5}, ws{6, 4 / w.group, w.k[0], w.k[1], w.k[2]};
    OnnxModel m(13);
    m.input("x", xs).input("w", ws).output("y");
    auto &n = m.node("Conv", {"x", "w"}, {"y"});
    window_attrs(n, w, false);
    set_int(n, "group", w.group);
    const Model g = import_onnx_bytes(m.bytes(), "conv3d.onnx");
    EXPECT_TRUE(kept_operator_types(g).empty());
    const Bindings<float> b = bind_variables(g.graph, g.weights, 7);
    expect_near(evaluate(FloatDomain{}, g.graph, b).at(0),
                by_definition(b.at("x"), w, &b.at("w"), false, false, 6));
  }
}

TEST(Onnx3d, PoolingOverDepthTapsCountsWhatItShould) {
  const Window w{{3, 2, 2}, {2, 1, 2}, {1, 1, 1}, {1, 1, 0, 1, 0, 1}};
  for (const char *op : {"MaxPool", "AveragePool"})
    for (const int64_t count_pad : {0, 1}) {
      SCOPED_TRACE(std::string(op) + " count_include_pad " +
                   std::to_string(count_pad));
      OnnxModel m(13);
      m.input("x", {1, 2, 5, 4, 5}).output("y");
      auto &n = m.node(op, {"x"}, {"y"});
      window_attrs(n, w, true);
      if (std::string(op) == "AveragePool")
        set_int(n, "count_include_pad", count_pad);
      const Model g = import_onnx_bytes(m.bytes(), "pool3d.onnx");
      EXPECT_TRUE(kept_operator_types(g).empty());
      const Bindings<float> b = bind_variables(g.graph, g.weights, 8);
      expect_near(evaluate(FloatDomain{}, g.graph, b).at(0),
                  by_definition(b.at("x"), w, nullptr,
                                std::string(op) == "MaxPool", count_pad != 0,
                                2));
    }
}

TEST(Onnx3d, GlobalPoolingIsAWindowOverTheWholeVolume) {
  // What a video network ends with: one window as large as the input.
  const Window whole{{3, 4, 5}};
  for (const char *op : {"GlobalMaxPool", "GlobalAveragePool"}) {
    SCOPED_TRACE(op);
    OnnxModel m(13);
    m.input("x", {2, 3, 3, 4, 5}).output("y");
    m.node(op, {"x"}, {"y"});
    const Model g = import_onnx_bytes(m.bytes(), "global3d.onnx");
    EXPECT_TRUE(kept_operator_types(g).empty());
    const Bindings<float> b = bind_variables(g.graph, g.weights, 9);
    const Tensor<float> y = evaluate(FloatDomain{}, g.graph, b).at(0);
    EXPECT_EQ(y.shape, (Shape{2, 3, 1, 1, 1}));
    expect_near(y, by_definition(b.at("x"), whole, nullptr,
                                 std::string(op) == "GlobalMaxPool", false, 3));
  }
}

} // namespace
} // namespace quarry
