//===- onnx_scatter_test.cc - Scatters at constant indices ----------------===//
#include "onnx_builder.h"

#include "quarry/core/evaluate.h"
#include "quarry/core/float_domain.h"
#include "quarry/core/weights.h"
#include "quarry/models/onnx.h"

#include <gtest/gtest.h>

namespace quarry {
namespace {

using namespace quarry::testing;

TEST(OnnxScatter, NdWritesWholeRowsOfComputedUpdates) {
  OnnxModel m(13);
  m.input("data", {4, 3}).input("upd", {2, 3}).output("y");
  m.ints("idx", {2, 1}, {3, -3}); // rows 3 and 1
  m.node("ScatterND", {"data", "idx", "upd"}, {"y"});
  const Model g = import_onnx_bytes(m.bytes(), "nd.onnx");
  EXPECT_TRUE(kept_operator_types(g).empty());
  const Bindings<float> b = bind_variables(g.graph, g.weights, 5);
  const Tensor<float> y = evaluate(FloatDomain{}, g.graph, b).at(0);
  const Tensor<float> &d = b.at("data"), &u = b.at("upd");
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 3; ++c) {
      const float want = r == 3 ? u[c] : r == 1 ? u[3 + c] : d[r * 3 + c];
      EXPECT_EQ(y[r * 3 + c], want) << r << "," << c;
    }
}

TEST(OnnxScatter, ElementsAlongAnAxisAndTheLastWriteWins) {
  OnnxModel m(13);
  m.input("data", {2, 4}).input("upd", {2, 2}).output("y");
  m.ints("idx", {2, 2}, {1, 1, -1, 0}); // row 0 writes 1 twice
  set_int(m.node("ScatterElements", {"data", "idx", "upd"}, {"y"}), "axis", 1);
  const Model g = import_onnx_bytes(m.bytes(), "el.onnx");
  const Bindings<float> b = bind_variables(g.graph, g.weights, 6);
  const Tensor<float> y = evaluate(FloatDomain{}, g.graph, b).at(0);
  const Tensor<float> &d = b.at("data"), &u = b.at("upd");
  const std::vector<float> want{d[0], u[1], d[2], d[3], u[3], d[5], d[6], u[2]};
  EXPECT_EQ(y.data, want);
}

TEST(OnnxScatter, AReductionIsKeptSayingSo) {
  OnnxModel m(16);
  m.input("data", {3}).input("upd", {1}).output("y");
  m.ints("idx", {1, 1}, {0});
  set_string(m.node("ScatterND", {"data", "idx", "upd"}, {"y"}), "reduction",
             "add");
  EXPECT_EQ(unrunnable_reason(import_onnx_bytes(m.bytes(), "r.onnx")),
            "node 'ScatterND_y' (ScatterND) is kept from the imported model "
            "as it is (reduction 'add' is not supported (none is)); quarry "
            "cannot run it");
}

} // namespace
} // namespace quarry
