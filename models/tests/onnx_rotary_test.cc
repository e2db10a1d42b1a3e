//===- onnx_rotary_test.cc - RotaryEmbedding (opset 23) as opset 17 -------===//
//
// Each case imports a RotaryEmbedding and compares what it evaluates to
// with the rotation computed directly, as ONNX defines it: each pair of a
// head's first rotary_embedding_dim features, (i, i + half) or (2i, 2i + 1)
// when interleaved, turned by the angle of its position and index.
//
//===----------------------------------------------------------------------===//
#include "onnx_import_test_util.h"

#include "quarry/core/evaluate.h"
#include "quarry/core/float_domain.h"
#include "quarry/core/weights.h"
#include "quarry/models/onnx.h"
#include "quarry/testing/error_of.h"

#include <gtest/gtest.h>

namespace quarry {
namespace {

using namespace quarry::testing;

struct Rotary {
  int64_t batch = 1, seq = 3, heads = 2, size = 6;
  int64_t rotary = 0; ///< 0: the whole head
  bool interleaved = false, flat = false, positions = false;
  int64_t cache_half = 0; ///< the caches' last axis (0: rotary / 2)
};

/// [batch, seq, heads, size] row-major index.
int64_t at(const Rotary &r, int64_t b, int64_t s, int64_t h, int64_t i) {
  return ((b * r.seq + s) * r.heads + h) * r.size + i;
}

void expect_rotates(const Rotary &r) {
  const int64_t rotary = r.rotary ? r.rotary : r.size, half = rotary / 2;
  const int64_t cache = r.cache_half ? r.cache_half : half;
  const int64_t positions = 5;
  OnnxModel m(23);
  const Ints x_shape = r.flat ? Ints{r.batch, r.seq, r.heads * r.size}
                              : Ints{r.batch, r.heads, r.seq, r.size};
  m.input("x", x_shape).output("y");
  // Angles: cos and sin of (position + 1) * (index + 1) / 7.
  std::vector<float> c, s;
  const int64_t rows = r.positions ? positions : r.batch * r.seq;
  for (int64_t p = 0; p < rows; ++p)
    for (int64_t i = 0; i < cache; ++i) {
      const double a = static_cast<double>((p + 1) * (i + 1)) / 7;
      c.push_back(static_cast<float>(std::cos(a)));
      s.push_back(static_cast<float>(std::sin(a)));
    }
  const Ints cache_shape =
      r.positions ? Ints{positions, cache} : Ints{r.batch, r.seq, cache};
  m.floats("cos", cache_shape, c).floats("sin", cache_shape, s);
  std::vector<std::string> in{"x", "cos", "sin"};
  // Positions in reverse, so that a cache read in order would differ.
  Ints ids;
  for (int64_t b = 0; b < r.batch; ++b)
    for (int64_t q = 0; q < r.seq; ++q)
      ids.push_back((r.seq - 1 - q + b) % positions);
  if (r.positions) {
    m.ints("ids", {r.batch, r.seq}, ids);
    in.push_back("ids");
  }
  auto &n = m.node("RotaryEmbedding", in, {"y"});
  if (r.flat)
    set_int(n, "num_heads", r.heads);
  if (r.rotary)
    set_int(n, "rotary_embedding_dim", r.rotary);
  if (r.interleaved)
    set_int(n, "interleaved", 1);
  const Model g = import_onnx_bytes(m.bytes(), "rotary.onnx");
  EXPECT_TRUE(kept_operator_types(g).empty());
  const Bindings<float> b = bind_variables(g.graph, g.weights, 7);
  const Tensor<float> &x = b.at("x");
  const Tensor<float> y = evaluate(FloatDomain{}, g.graph, b).at(0);
  ASSERT_EQ(y.shape, Shape(x_shape));
  // x and y read as [batch, seq, heads, size].
  auto read = [&](const Tensor<float> &t, int64_t bb, int64_t q, int64_t h,
                  int64_t i) {
    return r.flat ? t[at(r, bb, q, h, i)]
                  : t[((bb * r.heads + h) * r.seq + q) * r.size + i];
  };
  for (int64_t bb = 0; bb < r.batch; ++bb)
    for (int64_t q = 0; q < r.seq; ++q) {
      const int64_t row = r.positions ? ids[bb * r.seq + q] : bb * r.seq + q;
      for (int64_t h = 0; h < r.heads; ++h) {
        for (int64_t i = 0; i < half; ++i) {
          const int64_t first = r.interleaved ? 2 * i : i,
                        second = r.interleaved ? 2 * i + 1 : i + half;
          const double cs = c[row * cache + i], sn = s[row * cache + i];
          const double x1 = read(x, bb, q, h, first),
                       x2 = read(x, bb, q, h, second);
          EXPECT_NEAR(read(y, bb, q, h, first), cs * x1 - sn * x2, 1e-5);
          EXPECT_NEAR(read(y, bb, q, h, second), sn * x1 + cs * x2, 1e-5);
        }
        for (int64_t i = rotary; i < r.size; ++i)
          EXPECT_EQ(read(y, bb, q, h, i), read(x, bb, q, h, i));
      }
    }
}

TEST(OnnxRotary, HalvesOfA4DInputTurnByTheirAngles) { expect_rotates({}); }

TEST(OnnxRotary, InterleavedPairsOfA3DInput) {
  Rotary r;
  r.interleaved = true;
  r.flat = true;
  expect_rotates(r);
}

TEST(OnnxRotary, PartOfEachHeadByPositionIds) {
  Rotary r;
  r.batch = 2;
  r.rotary = 4;
  r.positions = true;
  r.cache_half = 3; // the whole head's angles: the first two are read
  expect_rotates(r);
  r.interleaved = true;
  expect_rotates(r);
}

TEST(OnnxRotary, BadShapesAreRefusedNamingTheNode) {
  auto refusal = [](const Ints &x, const Ints &cache, int64_t rotary) {
    OnnxModel m(23);
    m.input("x", x).output("y");
    const std::vector<float> v(
        static_cast<size_t>(cache[0] * cache[1] * cache[2]), 0.5f);
    m.floats("cos", cache, v).floats("sin", cache, v);
    auto &n = m.node("RotaryEmbedding", {"x", "cos", "sin"}, {"y"});
    if (rotary)
      set_int(n, "rotary_embedding_dim", rotary);
    return error_of([&] { import_onnx_bytes(m.bytes(), "rotary.onnx"); });
  };
  EXPECT_EQ(refusal({1, 2, 3, 6}, {1, 3, 3}, 5),
            "rotary.onnx: node 'RotaryEmbedding_y' (RotaryEmbedding): "
            "rotary_embedding_dim 5 must be even and at most the head size 6");
  EXPECT_EQ(refusal({1, 2, 3, 6}, {1, 3, 2}, 0),
            "rotary.onnx: node 'RotaryEmbedding_y' (RotaryEmbedding): "
            "cos_cache [1,3,2] and sin_cache [1,3,2] must be [1, 3, 3]");
  // 3-D without num_heads.
  EXPECT_EQ(refusal({1, 3, 12}, {1, 3, 3}, 0),
            "rotary.onnx: node 'RotaryEmbedding_y' (RotaryEmbedding): "
            "num_heads 0 must split X's hidden axis of 12");
}

} // namespace
} // namespace quarry
