//===- conformance_test.cc - Cases pass, fail and are unsupported ---------===//
//
// Cases written here (a model and its data sets) pin each outcome; ONNX's
// own cases from libonnx-testdata, when installed, check that a supported
// operator passes and an unsupported one says which operator it is.
//
//===----------------------------------------------------------------------===//
#include "quarry/conformance/conformance.h"

#include "quarry/core/error.h"
#include "quarry/core/evaluate.h"
#include "quarry/core/float_domain.h"
#include "quarry/models/onnx.h"
#include "quarry/models/tensor_file.h"
#include "quarry/testing/error_of.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <onnx/onnx_pb.h>

#include <cmath>
#include <filesystem>
#include <fstream>

namespace quarry::conformance {
namespace {

namespace fs = std::filesystem;

const std::string kNodeCases = "/usr/share/libonnx-testdata/data/node";

/// A case directory for y = relu(x) over [2, 3] whose expected output is
/// relu's, plus `error` on element 0; x and y declared of type `elem`.
std::string relu_case(const std::string &name, float error,
                      const std::string &op = "Relu",
                      int32_t elem = onnx::TensorProto::FLOAT) {
  // Per test: ctest runs the tests that share a case name at once.
  const fs::path dir =
      fs::path(::testing::TempDir()) / "conformance" /
      ::testing::UnitTest::GetInstance()->current_test_info()->name() / name;
  fs::remove_all(dir);
  fs::create_directories(dir / "test_data_set_0");
  onnx::ModelProto m;
  m.set_ir_version(7);
  m.add_opset_import()->set_version(13);
  auto *g = m.mutable_graph();
  g->set_name(name);
  for (const char *v : {"x", "y"}) {
    auto *info = std::string(v) == "x" ? g->add_input() : g->add_output();
    info->set_name(v);
    auto *t = info->mutable_type()->mutable_tensor_type();
    t->set_elem_type(elem);
    t->mutable_shape()->add_dim()->set_dim_value(2);
    t->mutable_shape()->add_dim()->set_dim_value(3);
  }
  auto *n = g->add_node();
  n->set_op_type(op);
  n->add_input("x");
  n->add_output("y");
  std::ofstream(dir / "model.onnx", std::ios::binary) << m.SerializeAsString();
  Tensor<float> x(Shape{2, 3}, {-1, 2, -3, 4, -5, 6});
  Tensor<float> y(Shape{2, 3}, {0, 2, 0, 4, 0, 6});
  y[0] += error;
  write_tensor_file((dir / "test_data_set_0" / "input_0.pb").string(), x, "x");
  write_tensor_file((dir / "test_data_set_0" / "output_0.pb").string(), y, "y");
  return dir.string();
}

TEST(Conformance, MatchingOutputsPass) {
  for (const char *backend : {"reference", "cpu"}) {
    Options o;
    o.backend = backend;
    const CaseResult r = run_case(relu_case("relu_ok", 0), o);
    EXPECT_EQ(r.outcome, Outcome::Pass) << backend << ": " << r.detail;
    EXPECT_EQ(r.data_sets, 1);
    EXPECT_EQ(r.operators, std::vector<std::string>{"Relu"});
  }
}

TEST(Conformance, AWrongOutputFailsWithTheElementAndBothValues) {
  const CaseResult r = run_case(relu_case("relu_off", 0.01f), Options{});
  EXPECT_EQ(r.outcome, Outcome::Fail);
  EXPECT_EQ(r.detail,
            "test_data_set_0: output 0 element 0: got 0, expected 0.01 "
            "(990 times the tolerance)");
  EXPECT_GT(r.worst, 1);
}

TEST(Conformance, AnUnknownOperatorIsUnsupportedAndNamed) {
  const CaseResult r =
      run_case(relu_case("lp_norm", 0, "LpNormalization"), Options{});
  EXPECT_EQ(r.outcome, Outcome::Unsupported);
  EXPECT_NE(r.detail.find("(LpNormalization) is kept"), std::string::npos)
      << r.detail;
}

TEST(Conformance, TrainingAndSequenceCasesAreNotFloat32Inference) {
  const CaseResult ok = run_case(relu_case("relu_ok", 0), Options{});
  EXPECT_TRUE(ok.float32);
  EXPECT_TRUE(ok.inference);
  const CaseResult seq =
      run_case(relu_case("seq", 0, "SequenceConstruct"), Options{});
  EXPECT_FALSE(seq.float32);
  EXPECT_FALSE(seq.inference);
}

TEST(Conformance, InferenceCasesHoldFloat16And8BitTensorsToo) {
  using T = onnx::TensorProto;
  for (int32_t elem : {T::FLOAT16, T::BFLOAT16, T::INT8, T::UINT8}) {
    const CaseResult r = run_case(relu_case("narrow", 0, "Relu", elem), {});
    EXPECT_FALSE(r.float32) << elem;
    EXPECT_TRUE(r.inference) << elem;
  }
  // int32 only where an integer convolution or product sums into it.
  for (int32_t elem : {T::INT64, T::INT32, T::UINT32, T::BOOL}) {
    const CaseResult r = run_case(relu_case("wide", 0, "Relu", elem), {});
    EXPECT_FALSE(r.inference) << elem;
  }
  EXPECT_TRUE(
      run_case(relu_case("sums", 0, "MatMulInteger", T::INT32), {}).inference);
}

TEST(Conformance, ACaseWhoseExpectedOutputIsDisputedIsUnsupportedSayingWhy) {
  // Named as the one ONNX case listed: its expected outputs are wrong here
  // on purpose, as ONNX's are by ONNX Runtime's reading.
  const CaseResult r = run_case(
      relu_case("test_maxunpool_export_with_output_shape", 0.5f), Options{});
  EXPECT_EQ(r.outcome, Outcome::Unsupported);
  EXPECT_EQ(r.detail.rfind("disputed: ", 0), 0u) << r.detail;
  EXPECT_NE(r.detail.find("onnx/onnx#2398"), std::string::npos) << r.detail;
  // Matching outputs pass, listed or not.
  EXPECT_EQ(run_case(relu_case("test_maxunpool_export_with_output_shape", 0),
                     Options{})
                .outcome,
            Outcome::Pass);
}

TEST(Conformance, FindsCasesUnderADirectoryAndRefusesOthers) {
  const std::string a = relu_case("relu_ok", 0);
  const std::string parent = fs::path(a).parent_path().string();
  const auto found = find_cases({parent});
  EXPECT_NE(std::find(found.begin(), found.end(), a), found.end());
  EXPECT_TRUE(std::is_sorted(found.begin(), found.end()));
  EXPECT_EQ(find_cases({a}), std::vector<std::string>{a});
  EXPECT_EQ(
      quarry::testing::error_of([] { find_cases({"/nonexistent/cases"}); }),
      "/nonexistent/cases: no such directory");
}

TEST(Conformance, SummaryCountsPerOperator) {
  std::vector<CaseResult> rs(3);
  rs[0].operators = {"Add", "Relu"};
  rs[0].outcome = Outcome::Pass;
  rs[1].operators = {"Relu"};
  rs[1].outcome = Outcome::Fail;
  rs[2].operators = {"Einsum"};
  const auto j = nlohmann::json::parse(summary_json(rs, Options{}));
  EXPECT_EQ(j["passed"], 1);
  EXPECT_EQ(j["failed"], 1);
  EXPECT_EQ(j["unsupported"], 1);
  EXPECT_EQ(j["operators"]["Relu"]["failed"], 1);
  EXPECT_EQ(j["operators"]["Relu"]["passed"], 1);
}

// ONNX's cubic Resize cases pass their scales or sizes as a graph input;
// fixed as constants (--input-value), each must give ONNX's expected
// output. Downsampling by scales that do not divide the extent is left out:
// quarry's resize maps coordinates by output / input extent, ONNX by the
// scale given (models/ONNX.md).
TEST(Conformance, CubicResizeWithItsParametersFixed) {
  if (!fs::exists(kNodeCases))
    GTEST_SKIP() << kNodeCases
                 << " is absent (install Debian's libonnx-testdata)";
  int checked = 0;
  for (const auto &e : fs::directory_iterator(kNodeCases)) {
    const std::string name = e.path().filename().string();
    if (name.find("resize") == std::string::npos ||
        name.find("cubic") == std::string::npos ||
        name.find("downsample_scales") != std::string::npos)
      continue;
    const fs::path set = e.path() / "test_data_set_0";
    OnnxImportOptions o;
    // Inputs 1 (roi) and 2 (scales) are parameters; input 0 is the data.
    for (int k = 1; fs::exists(set / ("input_" + std::to_string(k) + ".pb"));
         ++k) {
      TensorFile f = read_tensor_file(
          (set / ("input_" + std::to_string(k) + ".pb")).string());
      o.input_values.emplace(f.name, std::move(f));
    }
    const Model m = import_onnx((e.path() / "model.onnx").string(), o);
    Bindings<float> b = m.weights;
    TensorFile x = read_tensor_file((set / "input_0.pb").string());
    b.emplace("X", x.value);
    const auto got = evaluate(FloatDomain{}, m.graph, b);
    const Tensor<float> want =
        read_tensor_file((set / "output_0.pb").string()).value;
    ASSERT_EQ(got.at(0).shape, want.shape) << name;
    for (int64_t i = 0; i < want.numel(); ++i)
      EXPECT_NEAR(got[0][i], want[i], 1e-4 + 1e-3 * std::fabs(want[i]))
          << name << " element " << i;
    ++checked;
  }
  EXPECT_GE(checked, 6);
}

TEST(Conformance, OnnxOwnCases) {
  if (!fs::exists(kNodeCases))
    GTEST_SKIP() << kNodeCases
                 << " is absent (install Debian's libonnx-testdata)";
  for (const char *backend : {"reference", "cpu"}) {
    Options o;
    o.backend = backend;
    for (const char *name :
         {"test_relu", "test_add_bcast", "test_softmax_axis_1",
          "test_conv_with_strides_padding", "test_maxpool_2d_pads"}) {
      const CaseResult r = run_case(kNodeCases + "/" + name, o);
      EXPECT_EQ(r.outcome, Outcome::Pass)
          << backend << " " << name << ": " << r.detail;
    }
  }
  // A random draw, which quarry's deterministic graphs do not make.
  const CaseResult r = run_case(kNodeCases + "/test_bernoulli", Options{});
  EXPECT_EQ(r.outcome, Outcome::Unsupported);
  EXPECT_NE(r.detail.find("(Bernoulli) is kept"), std::string::npos)
      << r.detail;
}

TEST(Conformance, EveryCaseOnSeveralStreamsAsTheReference) {
  // The multi-stream plan checked on host threads runs each step by its
  // reference semantics: every case's outcome and error are the reference
  // backend's, to the bit.
  if (!fs::exists(kNodeCases))
    GTEST_SKIP() << kNodeCases
                 << " is absent (install Debian's libonnx-testdata)";
  Options reference, streams;
  streams.backend = "cpu";
  streams.streams = 0;
  int compared = 0;
  for (const std::string &dir : find_cases({kNodeCases})) {
    const CaseResult want = run_case(dir, reference);
    if (want.outcome == Outcome::Unsupported)
      continue;
    const CaseResult got = run_case(dir, streams);
    EXPECT_EQ(outcome_name(got.outcome), outcome_name(want.outcome))
        << dir << ": " << got.detail;
    EXPECT_EQ(got.worst, want.worst) << dir;
    ++compared;
  }
  EXPECT_GE(compared, 500);
}

} // namespace
} // namespace quarry::conformance
