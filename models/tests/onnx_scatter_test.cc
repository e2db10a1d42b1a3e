//===- onnx_scatter_test.cc - Scatters at constant indices ----------------===//
#include "../src/onnx_attrs.h"
#include "../src/onnx_kernels.h"
#include "kernel_operands.h"
#include "onnx_builder.h"

#include "quarry/core/evaluate.h"
#include "quarry/core/float_domain.h"
#include "quarry/core/weights.h"
#include "quarry/models/onnx.h"
#include "quarry/testing/error_of.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>

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

/// `data` with updates[k] combined into data[positions[k]] in order, as
/// ONNX's reference applies a scatter: what both lowering and kernel must
/// compute.
std::vector<float> in_order(std::vector<float> data,
                            const std::vector<float> &updates,
                            const std::vector<int64_t> &positions,
                            const std::string &reduction) {
  for (size_t k = 0; k < positions.size(); ++k) {
    float &to = data[static_cast<size_t>(positions[k])];
    const float u = updates[k];
    to = reduction == "add"   ? to + u
         : reduction == "mul" ? to * u
         : reduction == "max" ? std::max(to, u)
         : reduction == "min" ? std::min(to, u)
                              : u;
  }
  return data;
}

/// A ScatterND of rows of data [4,3] at constant rows `rows`, reduction
/// `reduction`, imported at `opset`.
OnnxModel nd_rows(int64_t opset, const std::vector<int64_t> &rows,
                  const std::string &reduction) {
  OnnxModel m(opset);
  m.input("data", {4, 3})
      .input("upd", {static_cast<int64_t>(rows.size()), 3})
      .output("y");
  m.ints("idx", {static_cast<int64_t>(rows.size()), 1}, rows);
  set_string(m.node("ScatterND", {"data", "idx", "upd"}, {"y"}), "reduction",
             reduction);
  return m;
}

TEST(OnnxScatter, ReductionsCombineRepeatedRowsInOrder) {
  // Row 1 three times, row 3 once: three rounds, each a gather and a mask.
  const std::vector<int64_t> rows{1, 3, -3, 1};
  for (const char *r : {"add", "mul", "max", "min"}) {
    const Model g = import_onnx_bytes(nd_rows(18, rows, r).bytes(), "nd.onnx");
    EXPECT_TRUE(kept_operator_types(g).empty()) << r;
    const Bindings<float> b = bind_variables(g.graph, g.weights, 7);
    std::vector<int64_t> positions;
    for (int64_t row : rows)
      for (int64_t c = 0; c < 3; ++c)
        positions.push_back((row < 0 ? row + 4 : row) * 3 + c);
    EXPECT_EQ(evaluate(FloatDomain{}, g.graph, b).at(0).data,
              in_order(b.at("data").data, b.at("upd").data, positions, r))
        << r;
  }
}

TEST(OnnxScatter, ElementsAddRepeatedPositions) {
  OnnxModel m(16);
  m.input("data", {2, 3}).input("upd", {2, 2}).output("y");
  m.ints("idx", {2, 2}, {2, 2, 0, 0});
  auto &n = m.node("ScatterElements", {"data", "idx", "upd"}, {"y"});
  set_int(n, "axis", 1);
  set_string(n, "reduction", "add");
  const Model g = import_onnx_bytes(m.bytes(), "el.onnx");
  const Bindings<float> b = bind_variables(g.graph, g.weights, 8);
  EXPECT_EQ(evaluate(FloatDomain{}, g.graph, b).at(0).data,
            in_order(b.at("data").data, b.at("upd").data, {2, 2, 3, 3}, "add"));
}

TEST(OnnxScatter, AReductionTheOpsetLacksIsKeptSayingSo) {
  EXPECT_EQ(unrunnable_reason(
                import_onnx_bytes(nd_rows(16, {0}, "max").bytes(), "r.onnx")),
            "node 'ScatterND_y' (ScatterND) is kept from the imported model "
            "as it is (reduction 'max' is not one of none, add and mul (max "
            "and min need opset 18)); quarry cannot run it");
}

TEST(OnnxScatter, ManyUpdatesOfOneElementAreLeftToTheKernel) {
  // Nine updates of row 0 would take nine rounds: the node is kept, and
  // its kernel (the same positions, in the same order) runs it.
  const Model g = import_onnx_bytes(
      nd_rows(16, std::vector<int64_t>(9, 0), "add").bytes(), "many.onnx");
  EXPECT_EQ(kept_operator_types(g), std::vector<std::string>{"ScatterND"});
  EXPECT_TRUE(onnx_io::has_kernel("ScatterND"));
}

TEST(OnnxScatter, TheKernelComputesWhatTheLoweringDoes) {
  const std::vector<int64_t> rows{2, 0, 2};
  for (const char *r : {"none", "add", "mul", "max", "min"}) {
    const Model g = import_onnx_bytes(nd_rows(18, rows, r).bytes(), "nd.onnx");
    const Bindings<float> b = bind_variables(g.graph, g.weights, 9);
    onnx::NodeProto n = node("ScatterND");
    onnx_io::add_attr(n, "reduction", std::string(r));
    const HeldValue data = value({4, 3}, b.at("data").data),
                    idx = value({3, 1}, {2, 0, 2}, onnx::TensorProto::INT64),
                    upd = value({3, 3}, b.at("upd").data);
    const auto got = onnx_io::run_kernel(n, 18, {&data, &idx, &upd});
    EXPECT_EQ(got.at(0).value.data,
              evaluate(FloatDomain{}, g.graph, b).at(0).data)
        << r;
  }
  // ScatterElements along axis 0, and an index out of range refused.
  onnx::NodeProto el = node("ScatterElements");
  onnx_io::add_attr(el, "reduction", std::string("mul"));
  const HeldValue data = value({2, 2}, {1, 2, 3, 4}),
                  idx = value({2, 2}, {1, 1, 1, 0}, onnx::TensorProto::INT64),
                  upd = value({2, 2}, {5, 6, 7, 8});
  EXPECT_EQ(onnx_io::run_kernel(el, 18, {&data, &idx, &upd}).at(0).value.data,
            (std::vector<float>{1, 16, 105, 24}));
  const HeldValue far = value({2, 2}, {2, 0, 0, 0}, onnx::TensorProto::INT64);
  EXPECT_EQ(error_of([&] {
              onnx_io::run_kernel(el, 18, {&data, &far, &upd});
            }),
            "index 2 out of range for axis 0 of [2,2]");
}

TEST(OnnxScatter, MaxUnpoolWritesIntoZerosWithOrWithoutAnOutputShape) {
  // A 2x2 input unpooled by 2x2 windows of stride 2 into 4x4, positions as
  // MaxPool's Indices give them (flat over the whole output).
  const std::vector<int64_t> at{5, 3, 8, 15};
  for (bool shaped : {false, true}) {
    OnnxModel m(11);
    m.input("x", {1, 1, 2, 2}).output("y");
    m.ints("i", {1, 1, 2, 2}, at);
    std::vector<std::string> in{"x", "i"};
    if (shaped) {
      m.ints("shape", {4}, {1, 1, 5, 4});
      in.push_back("shape");
    }
    auto &n = m.node("MaxUnpool", in, {"y"});
    set_ints(n, "kernel_shape", {2, 2});
    set_ints(n, "strides", {2, 2});
    const Model g = import_onnx_bytes(m.bytes(), "unpool.onnx");
    EXPECT_TRUE(kept_operator_types(g).empty());
    const Bindings<float> b = bind_variables(g.graph, g.weights, 10);
    const Tensor<float> y = evaluate(FloatDomain{}, g.graph, b).at(0);
    EXPECT_EQ(y.shape, shaped ? Shape({1, 1, 5, 4}) : Shape({1, 1, 4, 4}));
    std::vector<float> want(static_cast<size_t>(y.numel()), 0.0f);
    const auto &x = b.at("x").data;
    EXPECT_EQ(y.data, in_order(want, x, at, "none"));

    onnx::NodeProto kn = node("MaxUnpool");
    onnx_io::add_attr(kn, "kernel_shape", std::vector<int64_t>{2, 2});
    onnx_io::add_attr(kn, "strides", std::vector<int64_t>{2, 2});
    const HeldValue xv = value({1, 1, 2, 2}, x),
                    iv = value({1, 1, 2, 2}, {5, 3, 8, 15},
                               onnx::TensorProto::INT64),
                    sv = value({4}, {1, 1, 5, 4}, onnx::TensorProto::INT64);
    const auto got = onnx_io::run_kernel(
        kn, 11,
        shaped ? std::vector<const HeldValue *>{&xv, &iv, &sv}
               : std::vector<const HeldValue *>{&xv, &iv});
    EXPECT_EQ(got.at(0).value.shape, y.shape);
    EXPECT_EQ(got.at(0).value.data, y.data);
  }
}

TEST(OnnxScatter, MaxUnpoolRefusesAPositionOutsideItsOutput) {
  // Import keeps the node; its kernel, run on the same operands, refuses.
  OnnxModel m(11);
  m.input("x", {1, 1, 1, 2}).output("y");
  m.ints("i", {1, 1, 1, 2}, {0, 4});
  auto &n = m.node("MaxUnpool", {"x", "i"}, {"y"});
  set_ints(n, "kernel_shape", {1, 2});
  set_ints(n, "strides", {1, 2});
  EXPECT_EQ(kept_operator_types(import_onnx_bytes(m.bytes(), "bad.onnx")),
            std::vector<std::string>{"MaxUnpool"});
  onnx::NodeProto kn = node("MaxUnpool");
  onnx_io::add_attr(kn, "kernel_shape", std::vector<int64_t>{1, 2});
  onnx_io::add_attr(kn, "strides", std::vector<int64_t>{1, 2});
  const HeldValue xv = value({1, 1, 1, 2}, {1, 2}),
                  iv = value({1, 1, 1, 2}, {0, 4}, onnx::TensorProto::INT64);
  EXPECT_EQ(error_of([&] {
              onnx_io::run_kernel(kn, 11, {&xv, &iv});
            }),
            "index 4 is outside the output's 4 elements");
}

/// A MaxPool over x [1,2,5,6] whose attributes `set` gives.
template <class Set> Model max_pool_model(bool indices, Set set) {
  OnnxModel m(12);
  m.input("x", {1, 2, 5, 6}).output("y");
  std::vector<std::string> outs{"y"};
  if (indices) {
    m.output("i");
    outs.push_back("i");
  }
  set(m.node("MaxPool", {"x"}, outs));
  return import_onnx_bytes(m.bytes(), "pool.onnx");
}

TEST(OnnxScatter, MaxPoolsIndicesPointAtTheirMaximaInTheirWindows) {
  using Set = std::function<void(onnx::NodeProto &)>;
  const std::vector<std::pair<const char *, Set>> forms{
      {"plain",
       [](onnx::NodeProto &n) {
         set_ints(n, "kernel_shape", {2, 2});
       }},
      {"padded, strided, ceil",
       [](onnx::NodeProto &n) {
         set_ints(n, "kernel_shape", {3, 2});
         set_ints(n, "strides", {2, 2});
         set_ints(n, "pads", {1, 0, 1, 1});
         set_int(n, "ceil_mode", 1);
       }},
      {"dilated, same", [](onnx::NodeProto &n) {
         set_ints(n, "kernel_shape", {2, 2});
         set_ints(n, "dilations", {2, 1});
         set_string(n, "auto_pad", "SAME_UPPER");
       }}};
  for (const auto &[what, set] : forms) {
    // Values from the algebra's own pooling, imported without indices.
    const Model plain = max_pool_model(false, set);
    ASSERT_TRUE(kept_operator_types(plain).empty()) << what;
    const Bindings<float> b = bind_variables(plain.graph, plain.weights, 11);
    const Tensor<float> want = evaluate(FloatDomain{}, plain.graph, b).at(0);

    const Model kept = max_pool_model(true, set);
    EXPECT_EQ(kept_operator_types(kept), std::vector<std::string>{"MaxPool"});
    const onnx::ModelProto proto = [&] {
      onnx::ModelProto p;
      p.ParseFromString(kept.kept_onnx);
      return p;
    }();
    const HeldValue x = value({1, 2, 5, 6}, b.at("x").data);
    const auto got = onnx_io::run_kernel(proto.graph().node(0), 12, {&x});
    ASSERT_EQ(got.size(), 2u);
    EXPECT_EQ(got[0].value.shape, want.shape) << what;
    EXPECT_EQ(got[0].value.data, want.data) << what;
    EXPECT_EQ(got[1].elem, onnx::TensorProto::INT64);
    for (int64_t o = 0; o < want.numel(); ++o) {
      const auto at = static_cast<int64_t>(got[1].value[o]);
      ASSERT_GE(at, 0) << what;
      EXPECT_EQ(x.value[at], want[o]) << what << " at " << o;
      EXPECT_EQ(at / 30, o / (want.numel() / 2)) << what << ": its own channel";
    }
  }
}

TEST(OnnxScatter, MaxPoolsIndicesTakeTheFirstOfEqualMaximaAndStorageOrder) {
  // Window 0 holds 7 at (0,1) and at (1,0): the first, row-major, wins.
  const HeldValue x = value({1, 1, 2, 3}, {1, 7, 5, 7, 0, 9});
  auto pool = [&](int64_t storage_order, const HeldValue &in) {
    onnx::NodeProto n = node("MaxPool");
    onnx_io::add_attr(n, "kernel_shape", std::vector<int64_t>{2, 2});
    onnx_io::add_attr(n, "storage_order", storage_order);
    return onnx_io::run_kernel(n, 12, {&in});
  };
  const auto rows = pool(0, x);
  EXPECT_EQ(rows[0].value.data, (std::vector<float>{7, 9}));
  EXPECT_EQ(rows[1].value.data, (std::vector<float>{1, 5}));
  // Column-major: (0,1) is 1 * 2 + 0, (1,2) is 2 * 2 + 1.
  EXPECT_EQ(pool(1, x)[1].value.data, (std::vector<float>{2, 5}));
  // Unpooled, the maxima go back where they were; pooled again, the same.
  onnx::NodeProto un = node("MaxUnpool");
  onnx_io::add_attr(un, "kernel_shape", std::vector<int64_t>{2, 2});
  const HeldValue shape = value({4}, {1, 1, 2, 3}, onnx::TensorProto::INT64);
  const auto back = onnx_io::run_kernel(un, 12, {&rows[0], &rows[1], &shape});
  EXPECT_EQ(back[0].value.data, (std::vector<float>{0, 7, 0, 0, 0, 9}));
  EXPECT_EQ(pool(0, back[0])[0].value.data, rows[0].value.data);
}

} // namespace
} // namespace quarry
