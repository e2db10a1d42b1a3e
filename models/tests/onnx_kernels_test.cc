//===- onnx_kernels_test.cc - Kernels for kept ONNX operators -------------===//
//
// The operators kept from an imported model run on quarry's kernels
// between its static stages: they must give what ONNX's backend tests
// expect (read from the ONNX test data where it is installed), and reject
// malformed operands with a clear message. This file runs the backend
// tests of every kernel and checks NonZero, TopK, NonMaxSuppression and
// RoiAlign further; onnx_kernels_index_test.cc checks the others.
//
//===----------------------------------------------------------------------===//
#include "../src/onnx_attrs.h"
#include "../src/onnx_kernels.h"
#include "../src/onnx_tensor.h"
#include "kernel_operands.h"

#include "quarry/testing/error_of.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <numeric>
#include <random>

namespace quarry {
namespace {

namespace fs = std::filesystem;
using namespace quarry::testing;
using onnx_io::add_attr;
using onnx_io::run_kernel;

constexpr int32_t kInt64 = onnx::TensorProto::INT64;

/// Where Debian's libonnx-testdata installs ONNX's node tests.
const fs::path kNodeTests = "/usr/share/libonnx-testdata/data/node";

template <class Message> Message read_message(const fs::path &file) {
  std::ifstream in(file, std::ios::binary);
  Message m;
  if (!in || !m.ParseFromIstream(&in))
    ADD_FAILURE() << "cannot read " << file;
  return m;
}

HeldValue held(const onnx::TensorProto &t) {
  return HeldValue{onnx_io::decode_tensor(t).as_float(), t.data_type()};
}

bool is_float(int32_t elem) {
  return elem == onnx::TensorProto::FLOAT ||
         elem == onnx::TensorProto::DOUBLE ||
         elem == onnx::TensorProto::FLOAT16 ||
         elem == onnx::TensorProto::BFLOAT16;
}

/// Float outputs match within 1e-5 relative, or within `slack` where the
/// test data is rounded.
void expect_matches(const HeldValue &got, const HeldValue &want,
                    const std::string &what, float slack) {
  SCOPED_TRACE(what);
  EXPECT_EQ(got.elem, want.elem);
  ASSERT_EQ(got.value.shape, want.value.shape)
      << got.value.shape.str() << " vs " << want.value.shape.str();
  ASSERT_EQ(got.value.numel(), want.value.numel());
  for (int64_t i = 0; i < want.value.numel(); ++i) {
    float g = got.value[i], w = want.value[i];
    if (is_float(want.elem))
      EXPECT_NEAR(g, w, std::max(1e-5f * std::abs(w), slack)) << "at " << i;
    else
      EXPECT_EQ(g, w) << "at " << i;
  }
}

/// The opset of the nodes built here.
constexpr int64_t kOpset = 22;

/// Runs node test `name`'s nodes in order on each of its data sets,
/// comparing every output the graph declares.
void check_node_test(const std::string &name) {
  const fs::path dir = kNodeTests / name;
  auto model = read_message<onnx::ModelProto>(dir / "model.onnx");
  const onnx::GraphProto &g = model.graph();
  ASSERT_GE(g.node_size(), 1);
  for (const auto &node : g.node())
    ASSERT_TRUE(onnx_io::has_kernel(node.op_type())) << node.op_type();
  int64_t opset = 0;
  for (const auto &op : model.opset_import())
    if (op.domain().empty() || op.domain() == "ai.onnx")
      opset = op.version();
  // RoiAlign's expected outputs are written to four decimals, computed
  // from an X of more digits than the four the test keeps: they are as
  // close as that allows (ONNX's own runner allows 1e-3 relative).
  const float slack = name.starts_with("test_roialign") ? 1e-4f : 1e-6f;

  int sets = 0;
  for (;; ++sets) {
    // Data sets number the graph's inputs and outputs in order.
    const fs::path data = dir / ("test_data_set_" + std::to_string(sets));
    if (!fs::is_directory(data))
      break;
    SCOPED_TRACE(data.filename().string());
    std::map<std::string, HeldValue> values;
    for (int i = 0; i < g.input_size(); ++i)
      values[g.input(i).name()] = held(read_message<onnx::TensorProto>(
          data / ("input_" + std::to_string(i) + ".pb")));
    for (const auto &node : g.node()) {
      std::vector<const HeldValue *> operands;
      for (const std::string &in : node.input()) {
        auto it = values.find(in);
        ASSERT_TRUE(in.empty() || it != values.end()) << "no data for " << in;
        operands.push_back(in.empty() ? nullptr : &it->second);
      }
      std::vector<HeldValue> got = run_kernel(node, opset, operands);
      // A kernel computes every output, named or not.
      ASSERT_GE(static_cast<int>(got.size()), node.output_size());
      for (int k = 0; k < node.output_size(); ++k)
        if (!node.output(k).empty())
          values[node.output(k)] = std::move(got[k]);
    }
    for (int j = 0; j < g.output_size(); ++j) {
      HeldValue want = held(read_message<onnx::TensorProto>(
          data / ("output_" + std::to_string(j) + ".pb")));
      auto it = values.find(g.output(j).name());
      ASSERT_NE(it, values.end()) << g.output(j).name();
      expect_matches(it->second, want, g.output(j).name(), slack);
    }
  }
  EXPECT_GE(sets, 1) << "no data sets in " << dir;
}

class OnnxKernelsBackendTest : public ::testing::TestWithParam<const char *> {};

TEST_P(OnnxKernelsBackendTest, MatchesOnnxTestData) {
  if (!fs::is_directory(kNodeTests / GetParam()))
    GTEST_SKIP() << "ONNX's node test data (Debian's libonnx-testdata) is "
                    "not installed at "
                 << kNodeTests;
  check_node_test(GetParam());
}

INSTANTIATE_TEST_SUITE_P(
    OnnxKernels, OnnxKernelsBackendTest,
    ::testing::Values("test_nonzero_example", "test_top_k",
                      "test_top_k_negative_axis", "test_top_k_smallest",
                      "test_nonmaxsuppression_center_point_box_format",
                      "test_nonmaxsuppression_flipped_coordinates",
                      "test_nonmaxsuppression_identical_boxes",
                      "test_nonmaxsuppression_limit_output_size",
                      "test_nonmaxsuppression_single_box",
                      "test_nonmaxsuppression_suppress_by_IOU",
                      "test_nonmaxsuppression_suppress_by_IOU_and_scores",
                      "test_nonmaxsuppression_two_batches",
                      "test_nonmaxsuppression_two_classes",
                      "test_roialign_aligned_false",
                      "test_roialign_aligned_true"),
    [](const ::testing::TestParamInfo<const char *> &info) {
      return std::string(info.param);
    });

// Every node test of the index and mask operators; their "_expanded"
// forms, which run as several other operators, are left out. (Each case's
// inputs are of element types quarry decodes: none needs skipping.)
INSTANTIATE_TEST_SUITE_P(
    OnnxKernelsIndex, OnnxKernelsBackendTest,
    ::testing::Values(
        "test_argmax_default_axis_example",
        "test_argmax_default_axis_example_select_last_index",
        "test_argmax_default_axis_random",
        "test_argmax_default_axis_random_select_last_index",
        "test_argmax_keepdims_example",
        "test_argmax_keepdims_example_select_last_index",
        "test_argmax_keepdims_random",
        "test_argmax_keepdims_random_select_last_index",
        "test_argmax_negative_axis_keepdims_example",
        "test_argmax_negative_axis_keepdims_example_select_last_index",
        "test_argmax_negative_axis_keepdims_random",
        "test_argmax_negative_axis_keepdims_random_select_last_index",
        "test_argmax_no_keepdims_example",
        "test_argmax_no_keepdims_example_select_last_index",
        "test_argmax_no_keepdims_random",
        "test_argmax_no_keepdims_random_select_last_index",
        "test_argmin_default_axis_example",
        "test_argmin_default_axis_example_select_last_index",
        "test_argmin_default_axis_random",
        "test_argmin_default_axis_random_select_last_index",
        "test_argmin_keepdims_example",
        "test_argmin_keepdims_example_select_last_index",
        "test_argmin_keepdims_random",
        "test_argmin_keepdims_random_select_last_index",
        "test_argmin_negative_axis_keepdims_example",
        "test_argmin_negative_axis_keepdims_example_select_last_index",
        "test_argmin_negative_axis_keepdims_random",
        "test_argmin_negative_axis_keepdims_random_select_last_index",
        "test_argmin_no_keepdims_example",
        "test_argmin_no_keepdims_example_select_last_index",
        "test_argmin_no_keepdims_random",
        "test_argmin_no_keepdims_random_select_last_index", "test_compress_0",
        "test_compress_1", "test_compress_default_axis",
        "test_compress_negative_axis", "test_cumsum_1d",
        "test_cumsum_1d_exclusive", "test_cumsum_1d_reverse",
        "test_cumsum_1d_reverse_exclusive", "test_cumsum_2d_axis_0",
        "test_cumsum_2d_axis_1", "test_cumsum_2d_negative_axis",
        "test_eyelike_populate_off_main_diagonal", "test_eyelike_with_dtype",
        "test_eyelike_without_dtype", "test_gathernd_example_float32",
        "test_gathernd_example_int32", "test_gathernd_example_int32_batch_dim1",
        "test_isinf", "test_isinf_negative", "test_isinf_positive",
        "test_isnan", "test_onehot_negative_indices", "test_onehot_with_axis",
        "test_onehot_with_negative_axis", "test_onehot_without_axis",
        "test_tril", "test_tril_neg", "test_tril_one_row_neg",
        "test_tril_out_neg", "test_tril_out_pos", "test_tril_pos",
        "test_tril_square", "test_tril_square_neg", "test_tril_zero",
        "test_triu", "test_triu_neg", "test_triu_one_row",
        "test_triu_out_neg_out", "test_triu_out_pos", "test_triu_pos",
        "test_triu_square", "test_triu_square_neg", "test_triu_zero",
        "test_unique_not_sorted_without_axis", "test_unique_sorted_with_axis",
        "test_unique_sorted_with_axis_3d",
        "test_unique_sorted_with_negative_axis",
        "test_unique_sorted_without_axis"),
    [](const ::testing::TestParamInfo<const char *> &info) {
      return std::string(info.param);
    });

// Cast, Gather and integer arithmetic: what quarry keeps where it reads
// integers a kernel computed. (The 32- and 64-bit unsigned cases and the
// strings are left out: quarry decodes neither; and the bfloat16 Cast,
// whose data ONNX 1.12 stores as uint16 bit patterns: conformance reads
// those.)
INSTANTIATE_TEST_SUITE_P(
    OnnxKernelsArith, OnnxKernelsBackendTest,
    ::testing::Values(
        "test_add_bcast", "test_add_uint8", "test_sub_uint8", "test_mul_uint8",
        "test_div_uint8", "test_div_example", "test_mod_broadcast",
        "test_mod_int64_fmod", "test_mod_mixed_sign_float32",
        "test_mod_mixed_sign_int16", "test_mod_mixed_sign_int32",
        "test_mod_mixed_sign_int64", "test_mod_mixed_sign_int8",
        "test_mod_uint16", "test_mod_uint8", "test_gather_0", "test_gather_1",
        "test_gather_2d_indices", "test_gather_negative_indices",
        "test_cast_FLOAT_to_FLOAT16", "test_cast_FLOAT16_to_FLOAT",
        "test_castlike_FLOAT_to_FLOAT16"),
    [](const ::testing::TestParamInfo<const char *> &info) {
      return std::string(info.param);
    });

//===----------------------------------------------------------------------===//
// Cases the test data leaves out
//===----------------------------------------------------------------------===//

TEST(OnnxKernels, HasKernelForExactlyItsOperators) {
  for (const char *op : {"NonZero",  "TopK",     "NonMaxSuppression",
                         "RoiAlign", "ArgMax",   "ArgMin",
                         "GatherND", "Compress", "OneHot",
                         "Unique",   "CumSum",   "Trilu",
                         "EyeLike",  "IsInf",    "IsNaN",
                         "Cast",     "CastLike", "Gather",
                         "Add",      "Sub",      "Mul",
                         "Div",      "Mod"})
    EXPECT_TRUE(onnx_io::has_kernel(op)) << op;
  for (const char *op : {"Relu", "Loop", "nonzero", "RoiPool", "GatherElements",
                         "Tril", "ArgMaxV2", "Pow", ""})
    EXPECT_FALSE(onnx_io::has_kernel(op)) << op;
}

TEST(OnnxKernels, IntegerArithmeticWrapsAndRefusesDivisionByZero) {
  HeldValue a = value({2}, {250, -7}, onnx::TensorProto::UINT8);
  HeldValue b = value({2}, {10, 2}, onnx::TensorProto::UINT8);
  EXPECT_EQ(run_kernel(node("Add"), kOpset, {&a, &b})[0].value.data,
            (std::vector<float>{4, 251})); // 260 and -5 wrapped to 8 bits
  HeldValue p = value({2}, {-7, 7}, kInt64), q = value({}, {2}, kInt64);
  EXPECT_EQ(run_kernel(node("Div"), kOpset, {&p, &q})[0].value.data,
            (std::vector<float>{-3, 3})); // toward zero
  EXPECT_EQ(run_kernel(node("Mod"), kOpset, {&p, &q})[0].value.data,
            (std::vector<float>{1, 1})); // the divisor's sign
  HeldValue zero = value({}, {0}, kInt64);
  EXPECT_EQ(error_of([&] {
              run_kernel(node("Div"), kOpset, {&p, &zero});
            }),
            "an integer Div by zero");
  HeldValue x = value({2, 2}, {1, 2, 3, 4});
  HeldValue far = value({1}, {2}, kInt64);
  EXPECT_EQ(error_of([&] {
              run_kernel(node("Gather"), kOpset, {&x, &far});
            }),
            "index 2 is out of range for axis 0 of data [2,2]");
}

TEST(OnnxKernels, NonZeroOfAScalarAndOfNothing) {
  HeldValue five = value({}, {5});
  auto out = run_kernel(node("NonZero"), kOpset, {&five});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].value.shape, (Shape{0, 1}));
  EXPECT_EQ(out[0].elem, kInt64);

  HeldValue zeros = value({2, 2}, {0, 0, 0, 0}, onnx::TensorProto::BOOL);
  out = run_kernel(node("NonZero"), kOpset, {&zeros});
  EXPECT_EQ(out[0].value.shape, (Shape{2, 0}));
}

TEST(OnnxKernels, TopKBreaksTiesByLowerIndex) {
  HeldValue x = value({1, 5}, {2, 7, 2, 7, 1}, onnx::TensorProto::INT32);
  HeldValue k = value({1}, {3}, kInt64);
  auto largest = run_kernel(node("TopK"), kOpset, {&x, &k});
  EXPECT_EQ(largest[0].value.data, (std::vector<float>{7, 7, 2}));
  EXPECT_EQ(largest[1].value.data, (std::vector<float>{1, 3, 0}));
  EXPECT_EQ(largest[0].elem, onnx::TensorProto::INT32);
  EXPECT_EQ(largest[1].elem, kInt64);

  onnx::NodeProto smallest = node("TopK");
  add_attr(smallest, "largest", int64_t{0});
  auto out = run_kernel(smallest, kOpset, {&x, &k});
  EXPECT_EQ(out[0].value.data, (std::vector<float>{1, 2, 2}));
  EXPECT_EQ(out[1].value.data, (std::vector<float>{4, 0, 2}));
}

TEST(OnnxKernels, TopKBeforeOpset10TakesKAsAnAttribute) {
  HeldValue x = value({2, 3}, {1, 3, 2, 6, 4, 5});
  onnx::NodeProto n = node("TopK");
  add_attr(n, "k", int64_t{2});
  auto out = run_kernel(n, kOpset, {&x});
  EXPECT_EQ(out[0].value.shape, (Shape{2, 2}));
  EXPECT_EQ(out[0].value.data, (std::vector<float>{3, 2, 6, 5}));
  EXPECT_EQ(out[1].value.data, (std::vector<float>{1, 2, 0, 2}));
}

TEST(OnnxKernels, TopKAlongAnInnerAxis) {
  HeldValue x = value({2, 2, 2}, {1, 8, 5, 2, 3, 4, 7, 0});
  HeldValue k = value({1}, {1}, kInt64);
  onnx::NodeProto n = node("TopK");
  add_attr(n, "axis", int64_t{1});
  auto out = run_kernel(n, kOpset, {&x, &k});
  EXPECT_EQ(out[0].value.shape, (Shape{2, 1, 2}));
  EXPECT_EQ(out[0].value.data, (std::vector<float>{5, 8, 7, 4}));
  EXPECT_EQ(out[1].value.data, (std::vector<float>{1, 0, 1, 0}));
}

TEST(OnnxKernels, NonMaxSuppressionWithoutAMaximumSelectsNothing) {
  HeldValue boxes = value({1, 1, 4}, {0, 0, 1, 1});
  HeldValue scores = value({1, 1, 1}, {0.9f});
  auto out = run_kernel(node("NonMaxSuppression"), kOpset, {&boxes, &scores});
  EXPECT_EQ(out[0].value.shape, (Shape{0, 3}));
  EXPECT_EQ(out[0].elem, kInt64);
}

TEST(OnnxKernels, NonMaxSuppressionKeepsOnlyScoresAboveTheThreshold) {
  HeldValue boxes = value({1, 2, 4}, {0, 0, 1, 1, 2, 2, 3, 3});
  HeldValue scores = value({1, 1, 2}, {0.5f, 0.6f});
  HeldValue most = value({1}, {10}, kInt64);
  HeldValue iou = value({1}, {0.5f});
  HeldValue threshold = value({1}, {0.5f});
  auto out = run_kernel(node("NonMaxSuppression"), kOpset,
                        {&boxes, &scores, &most, &iou, &threshold});
  EXPECT_EQ(out[0].value.shape, (Shape{1, 3}));
  EXPECT_EQ(out[0].value.data, (std::vector<float>{0, 0, 1}));
}

TEST(OnnxKernels, BitShiftWrapsToItsTypesWidth) {
  HeldValue x = value({4}, {1, 200, 255, 3}, onnx::TensorProto::UINT8);
  HeldValue y = value({4}, {1, 1, 4, 9}, onnx::TensorProto::UINT8);
  onnx::NodeProto left = node("BitShift");
  add_attr(left, "direction", std::string("LEFT"));
  auto out = run_kernel(left, kOpset, {&x, &y});
  // 200 << 1 and 255 << 4 lose their high bits; 3 << 9 all of them.
  EXPECT_EQ(out[0].value.data, (std::vector<float>{2, 144, 240, 0}));
  EXPECT_EQ(out[0].elem, onnx::TensorProto::UINT8);
  onnx::NodeProto right = node("BitShift");
  add_attr(right, "direction", std::string("RIGHT"));
  out = run_kernel(right, kOpset, {&x, &y});
  EXPECT_EQ(out[0].value.data, (std::vector<float>{0, 100, 15, 0}));
  HeldValue f = value({1}, {1});
  EXPECT_EQ(error_of([&] {
              run_kernel(left, kOpset, {&f, &f});
            }),
            "BitShift takes unsigned integers, not element type 1");
}

/// Whether `a` orders above `b` by size: NaN above every number, -0 and
/// 0 alike (numpy's sort, ONNX's reference).
bool above(float a, float b) {
  if (std::isnan(a))
    return !std::isnan(b);
  return !std::isnan(b) && a > b;
}

TEST(OnnxKernels, TopKIsAStableSortsFirstK) {
  // Ties, signed zeros and NaNs among 3,072 values, K = 1,000 and all.
  std::mt19937 rng(7);
  std::vector<float> pool = {0.0f,          -0.0f,    1.5f,     -2.0f,
                             std::nanf(""), INFINITY, -INFINITY};
  std::vector<float> x(3072);
  for (float &v : x)
    v = rng() % 3 ? pool[rng() % pool.size()]
                  : static_cast<float>(static_cast<int>(rng() % 200) - 100);
  HeldValue xv = value({3072}, x);
  for (const int64_t k : {int64_t{1000}, int64_t{3072}})
    for (const bool largest : {true, false}) {
      HeldValue kv = value({1}, {static_cast<float>(k)}, kInt64);
      onnx::NodeProto n = node("TopK");
      add_attr(n, "largest", int64_t{largest});
      auto out = run_kernel(n, kOpset, {&xv, &kv});
      std::vector<int64_t> order(x.size());
      std::iota(order.begin(), order.end(), int64_t{0});
      std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
        return largest ? above(x[a], x[b]) : above(x[b], x[a]);
      });
      ASSERT_EQ(out[1].value.numel(), k);
      for (int64_t j = 0; j < k; ++j)
        ASSERT_EQ(out[1].value[j], static_cast<float>(order[j]))
            << "k " << k << " largest " << largest << " at " << j;
    }
}

TEST(OnnxKernels, NonMaxSuppressionAsOnePairAtATime) {
  // 600 random boxes, some of no area, some NaN, against the pairwise
  // definition: a box is kept unless it overlaps a kept one by more than
  // the threshold, in float32, boxes of no area never suppressing.
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> at(0.0f, 50.0f), size(0.0f, 12.0f);
  const int n = 600;
  std::vector<float> boxes, scores;
  for (int i = 0; i < n; ++i) {
    const float y = at(rng), x = at(rng);
    const float h = i % 37 ? size(rng) : 0.0f, w = size(rng);
    boxes.insert(boxes.end(), {y, x, y + h, x + w});
    scores.push_back(i % 53 ? at(rng) : std::nanf(""));
  }
  boxes[4 * 17 + 2] = std::nanf("");
  HeldValue bv = value({1, n, 4}, boxes), sv = value({1, 1, n}, scores);
  HeldValue most = value({1}, {static_cast<float>(n)}, kInt64);
  HeldValue iou = value({1}, {0.3f});
  auto out =
      run_kernel(node("NonMaxSuppression"), kOpset, {&bv, &sv, &most, &iou});
  auto suppresses = [&](int a, int b) {
    const float *p = &boxes[4 * a], *q = &boxes[4 * b];
    auto lo = [](float u, float v) { return std::min(u, v); };
    auto hi = [](float u, float v) { return std::max(u, v); };
    const float ax0 = lo(p[1], p[3]), ax1 = hi(p[1], p[3]);
    const float ay0 = lo(p[0], p[2]), ay1 = hi(p[0], p[2]);
    const float bx0 = lo(q[1], q[3]), bx1 = hi(q[1], q[3]);
    const float by0 = lo(q[0], q[2]), by1 = hi(q[0], q[2]);
    const float ix0 = std::max(ax0, bx0), ix1 = std::min(ax1, bx1);
    if (ix1 <= ix0)
      return false;
    const float iy0 = std::max(ay0, by0), iy1 = std::min(ay1, by1);
    if (iy1 <= iy0)
      return false;
    const float inter = (ix1 - ix0) * (iy1 - iy0);
    if (inter <= 0.0f)
      return false;
    const float area_a = (ax1 - ax0) * (ay1 - ay0);
    const float area_b = (bx1 - bx0) * (by1 - by0);
    const float uni = area_a + area_b - inter;
    if (area_a <= 0.0f || area_b <= 0.0f || uni <= 0.0f)
      return false;
    return inter / uni > 0.3f;
  };
  std::vector<int> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    return !std::isnan(scores[a]) &&
           (std::isnan(scores[b]) || scores[a] > scores[b]);
  });
  std::vector<float> want;
  std::vector<int> kept;
  for (int c : order)
    if (std::none_of(kept.begin(), kept.end(),
                     [&](int k) { return suppresses(c, k); })) {
      kept.push_back(c);
      want.insert(want.end(), {0, 0, static_cast<float>(c)});
    }
  EXPECT_GT(kept.size(), 100u);
  EXPECT_LT(kept.size(), static_cast<size_t>(n));
  EXPECT_EQ(out[0].value.data, want);
}

/// X = [[1, 2], [3, 4]], one roi sampled once at its centre (0.5, 0.5).
std::vector<HeldValue> pool_centre(const std::string &mode) {
  HeldValue x = value({1, 1, 2, 2}, {1, 2, 3, 4});
  HeldValue rois = value({1, 4}, {0, 0, 1, 1});
  HeldValue batch = value({1}, {0}, kInt64);
  onnx::NodeProto n = node("RoiAlign");
  add_attr(n, "mode", mode);
  add_attr(n, "sampling_ratio", int64_t{1});
  add_attr(n, "coordinate_transformation_mode",
           std::string("output_half_pixel"));
  return run_kernel(n, kOpset, {&x, &rois, &batch});
}

TEST(OnnxKernels, RoiAlignMaxTakesTheLargestWeightedCorner) {
  auto avg = pool_centre("avg");
  EXPECT_EQ(avg[0].value.shape, (Shape{1, 1, 1, 1}));
  EXPECT_EQ(avg[0].value.data, (std::vector<float>{2.5f}));
  // As ONNX Runtime computes "max": the largest of the four corners each
  // times its weight (0.25 here), not the largest interpolated value.
  auto max = pool_centre("max");
  EXPECT_EQ(max[0].value.data, (std::vector<float>{1.0f}));
}

/// RoiAlign's [num_rois, channels, 2, 2] from channels that each hold
/// x[h][w] = w (16 x 16), rois 5.5 wide from x1 = 1 + r % 7.
void expect_ramp_pooled_to_bin_centres(int64_t num_rois, int64_t channels,
                                       int64_t sampling_ratio) {
  const int64_t side = 16;
  std::vector<float> ramp;
  for (int64_t i = 0; i < channels * side * side; ++i)
    ramp.push_back(static_cast<float>(i % side));
  HeldValue x = value({1, channels, side, side}, ramp);
  std::vector<float> boxes;
  for (int64_t r = 0; r < num_rois; ++r) {
    const float x1 = 1.0f + static_cast<float>(r % 7);
    boxes.insert(boxes.end(), {x1, 2.0f, x1 + 5.5f, 9.0f});
  }
  HeldValue rois = value({num_rois, 4}, boxes);
  HeldValue batch =
      value({num_rois}, std::vector<float>(num_rois, 0.0f), kInt64);
  onnx::NodeProto n = node("RoiAlign");
  add_attr(n, "output_height", int64_t{2});
  add_attr(n, "output_width", int64_t{2});
  add_attr(n, "sampling_ratio", sampling_ratio);
  const auto out = run_kernel(n, kOpset, {&x, &rois, &batch});
  ASSERT_EQ(out[0].value.shape, (Shape{num_rois, channels, 2, 2}));
  for (int64_t r = 0; r < num_rois; ++r)
    for (int64_t c = 0; c < channels; ++c)
      for (int64_t pw = 0; pw < 2; ++pw) {
        // half_pixel: the roi starts half a pixel before x1.
        const float centre =
            boxes[r * 4] - 0.5f + (static_cast<float>(pw) + 0.5f) * 2.75f;
        EXPECT_NEAR(out[0].value.data[((r * channels + c) * 2 + 1) * 2 + pw],
                    centre, 1e-3)
            << "roi " << r << " channel " << c;
      }
}

TEST(OnnxKernels, RoiAlignAveragesARampToEachBinsCentre) {
  // Bilinear sampling reproduces a ramp exactly, so a bin's mean is its
  // centre's w: over enough rois and channels to pool on several threads,
  // and at 90,000 samples a bin, too many to list, so sampled one by one.
  expect_ramp_pooled_to_bin_centres(64, 128, 2);
  expect_ramp_pooled_to_bin_centres(2, 3, 300);
}

TEST(OnnxKernels, RoiAlignPoolsChannelsTogetherAsEachAlone) {
  // Many channels are pooled a vector of channels at a time, read
  // channels-last; one channel alone is pooled plane by plane. Each
  // channel's values are the same either way, to the bit, in both modes.
  const int64_t batches = 2, channels = 24, height = 13, width = 11;
  const int64_t num_rois = 9;
  std::mt19937 gen(7);
  std::uniform_real_distribution<float> value_of(-2.0f, 2.0f);
  std::uniform_real_distribution<float> corner(-3.0f, 30.0f);
  std::vector<float> image(batches * channels * height * width);
  for (float &v : image)
    v = value_of(gen);
  std::vector<float> boxes, which;
  for (int64_t r = 0; r < num_rois; ++r) {
    const float x1 = corner(gen), y1 = corner(gen);
    boxes.insert(boxes.end(), {x1, y1, x1 + corner(gen), y1 + corner(gen)});
    which.push_back(static_cast<float>(r % batches));
  }
  HeldValue x = value({batches, channels, height, width}, image);
  HeldValue rois = value({num_rois, 4}, boxes);
  HeldValue batch = value({num_rois}, which, kInt64);
  for (const std::string mode : {"avg", "max"})
    for (const int64_t ratio : {int64_t{0}, int64_t{2}}) {
      onnx::NodeProto n = node("RoiAlign");
      add_attr(n, "mode", mode);
      add_attr(n, "output_height", int64_t{3});
      add_attr(n, "output_width", int64_t{4});
      add_attr(n, "sampling_ratio", ratio);
      add_attr(n, "spatial_scale", 0.5f);
      const Tensor<float> all =
          run_kernel(n, kOpset, {&x, &rois, &batch})[0].value;
      ASSERT_EQ(all.shape, (Shape{num_rois, channels, 3, 4}));
      for (int64_t c = 0; c < channels; ++c) {
        std::vector<float> plane;
        for (int64_t b = 0; b < batches; ++b) {
          const auto *from = image.data() + (b * channels + c) * height * width;
          plane.insert(plane.end(), from, from + height * width);
        }
        HeldValue one = value({batches, 1, height, width}, plane);
        const Tensor<float> alone =
            run_kernel(n, kOpset, {&one, &rois, &batch})[0].value;
        for (int64_t r = 0; r < num_rois; ++r)
          for (int64_t bin = 0; bin < 12; ++bin)
            ASSERT_EQ(std::bit_cast<uint32_t>(
                          all.data[(r * channels + c) * 12 + bin]),
                      std::bit_cast<uint32_t>(alone.data[r * 12 + bin]))
                << mode << " ratio " << ratio << " roi " << r << " channel "
                << c << " bin " << bin;
      }
    }
}

TEST(OnnxKernels, RoiAlignBeforeOpset16SamplesAsOutputHalfPixel) {
  // Opset 16 added coordinate_transformation_mode, "half_pixel" by
  // default; before it RoiAlign sampled as "output_half_pixel" does.
  HeldValue x = value({1, 1, 3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
  HeldValue rois = value({1, 4}, {0.5f, 0.5f, 2.5f, 2.5f});
  HeldValue batch = value({1}, {0}, kInt64);
  onnx::NodeProto plain = node("RoiAlign");
  add_attr(plain, "output_height", int64_t{2});
  add_attr(plain, "output_width", int64_t{2});
  onnx::NodeProto old_mode = plain;
  add_attr(old_mode, "coordinate_transformation_mode",
           std::string("output_half_pixel"));
  const auto at10 = run_kernel(plain, 10, {&x, &rois, &batch});
  EXPECT_EQ(at10[0].value,
            run_kernel(old_mode, 22, {&x, &rois, &batch})[0].value);
  EXPECT_NE(at10[0].value, run_kernel(plain, 16, {&x, &rois, &batch})[0].value);
}

//===----------------------------------------------------------------------===//
// Errors
//===----------------------------------------------------------------------===//

TEST(OnnxKernels, RejectsAMissingInput) {
  EXPECT_EQ(error_of([] { run_kernel(node("NonZero"), kOpset, {nullptr}); }),
            "input X is missing");
  HeldValue x = value({3}, {1, 2, 3});
  EXPECT_EQ(error_of([&] { run_kernel(node("TopK"), kOpset, {&x}); }),
            "input K is missing");
  EXPECT_EQ(error_of([&] {
              run_kernel(node("RoiAlign"), kOpset, {&x, &x});
            }),
            "input batch_indices is missing");
}

TEST(OnnxKernels, RejectsAKOutsideTheAxis) {
  HeldValue x = value({3, 4}, std::vector<float>(12, 1.0f));
  HeldValue k = value({1}, {5}, kInt64);
  EXPECT_EQ(error_of([&] {
              run_kernel(node("TopK"), kOpset, {&x, &k});
            }),
            "K must be between 0 and 4 (the length of axis 1 of X [3,4]), "
            "not 5");
  k.value.data = {-1};
  EXPECT_EQ(error_of([&] {
              run_kernel(node("TopK"), kOpset, {&x, &k});
            }),
            "K must be between 0 and 4 (the length of axis 1 of X [3,4]), "
            "not -1");
  HeldValue two_ks = value({2}, {1, 2}, kInt64);
  EXPECT_EQ(error_of([&] {
              run_kernel(node("TopK"), kOpset, {&x, &two_ks});
            }),
            "K must hold one value, not 2 (shape [2])");
  onnx::NodeProto far = node("TopK");
  add_attr(far, "axis", int64_t{2});
  k.value.data = {1};
  EXPECT_EQ(error_of([&] {
              run_kernel(far, kOpset, {&x, &k});
            }),
            "axis 2 is out of range for X of [3,4]");
}

TEST(OnnxKernels, RejectsMalformedBoxes) {
  HeldValue boxes = value({2, 3}, std::vector<float>(6, 0.0f));
  HeldValue scores = value({1, 1, 2}, {0.5f, 0.6f});
  EXPECT_EQ(error_of([&] {
              run_kernel(node("NonMaxSuppression"), kOpset, {&boxes, &scores});
            }),
            "boxes must be [batches, spatial, 4], not [2,3]");
  boxes = value({1, 3, 4}, std::vector<float>(12, 0.0f));
  EXPECT_EQ(error_of([&] {
              run_kernel(node("NonMaxSuppression"), kOpset, {&boxes, &scores});
            }),
            "scores [1,1,2] do not match boxes [1,3,4] (want [1, classes, "
            "3])");
  scores = value({1, 1, 3}, {0.5f, 0.6f, 0.7f});
  HeldValue most = value({1}, {1}, kInt64);
  HeldValue iou = value({1}, {1.5f});
  EXPECT_EQ(error_of([&] {
              run_kernel(node("NonMaxSuppression"), kOpset,
                         {&boxes, &scores, &most, &iou});
            }),
            "iou_threshold must be in [0, 1], not 1.5");
  onnx::NodeProto odd = node("NonMaxSuppression");
  add_attr(odd, "center_point_box", int64_t{2});
  EXPECT_EQ(error_of([&] {
              run_kernel(odd, kOpset, {&boxes, &scores});
            }),
            "center_point_box must be 0 or 1, not 2");
}

TEST(OnnxKernels, RejectsMalformedRois) {
  HeldValue x = value({1, 1, 2, 2}, {1, 2, 3, 4});
  HeldValue rois = value({1, 4}, {0, 0, 1, 1});
  HeldValue batch = value({1}, {1}, kInt64);
  EXPECT_EQ(error_of([&] {
              run_kernel(node("RoiAlign"), kOpset, {&x, &rois, &batch});
            }),
            "batch_indices[0] is 1, outside [0, 1)");
  batch.value.data = {0};
  HeldValue flat = value({2, 2}, {1, 2, 3, 4});
  EXPECT_EQ(error_of([&] {
              run_kernel(node("RoiAlign"), kOpset, {&flat, &rois, &batch});
            }),
            "X must be [N, C, H, W], not [2,2]");
  HeldValue three = value({1, 3}, {0, 0, 1});
  EXPECT_EQ(error_of([&] {
              run_kernel(node("RoiAlign"), kOpset, {&x, &three, &batch});
            }),
            "rois must be [num_rois, 4], not [1,3]");
  HeldValue two = value({2}, {0, 0}, kInt64);
  EXPECT_EQ(error_of([&] {
              run_kernel(node("RoiAlign"), kOpset, {&x, &rois, &two});
            }),
            "batch_indices must be [1] (one per roi), not [2]");
  onnx::NodeProto wide = node("RoiAlign");
  add_attr(wide, "output_width", int64_t{-2});
  EXPECT_EQ(error_of([&] {
              run_kernel(wide, kOpset, {&x, &rois, &batch});
            }),
            "output_height and output_width must be positive, not 1 and -2");
  onnx::NodeProto mode = node("RoiAlign");
  add_attr(mode, "mode", std::string("min"));
  EXPECT_EQ(error_of([&] {
              run_kernel(mode, kOpset, {&x, &rois, &batch});
            }),
            "mode must be \"avg\" or \"max\", not \"min\"");
}

TEST(OnnxKernels, RejectsAValueOfAnotherSizeThanItsShape) {
  HeldValue x = value({2, 3}, {1, 2});
  EXPECT_EQ(error_of([&] { run_kernel(node("NonZero"), kOpset, {&x}); }),
            "operand 0 of shape [2,3] holds 2 values");
}

} // namespace
} // namespace quarry
