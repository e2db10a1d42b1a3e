//===- cpu_backend_test.cc - oneDNN results equal the reference's ---------===//
#include "cases.h"
#include "quarry/runtime/cpu_backend.h"
#include "quarry/runtime/reference_backend.h"

namespace quarry::runtime::testing {
namespace {

class CpuOperator : public ::testing::TestWithParam<Case> {};
class CpuGraph : public ::testing::TestWithParam<Case> {};

TEST_P(CpuOperator, MatchesReference) {
  auto cpu = make_cpu_backend();
  auto ref = make_reference_backend();
  expect_matches_reference(*cpu, *ref, GetParam());
}

TEST_P(CpuGraph, MatchesReference) {
  auto cpu = make_cpu_backend();
  auto ref = make_reference_backend();
  expect_matches_reference(*cpu, *ref, GetParam());
}

std::string case_name(const ::testing::TestParamInfo<Case> &info) {
  return info.param.name;
}

INSTANTIATE_TEST_SUITE_P(All, CpuOperator,
                         ::testing::ValuesIn(operator_cases()), case_name);
INSTANTIATE_TEST_SUITE_P(All, CpuGraph, ::testing::ValuesIn(graph_cases()),
                         case_name);

TEST(CpuBackend, RunsAgainWithNewInputs) {
  const Graph g = parse_graph("input x: [2,3]\nweight w: [3,4]\n"
                              "y = matmul[act=relu](x, w)\noutput y\n");
  auto cpu = make_cpu_backend();
  auto ref = make_reference_backend();
  auto values = random_run_bindings(g, 1);
  auto e = cpu->prepare(g, values);
  for (uint64_t seed : {2, 3}) {
    auto inputs = random_run_bindings(g, seed);
    inputs.insert_or_assign("w", values.at("w"));
    const auto want = run_once(*ref->prepare(g, values), inputs);
    EXPECT_LE(max_relative_error(run_once(*e, inputs), want), kTolerance)
        << seed;
  }
}

TEST(CpuBackend, DeviceNameNamesTheThreads) {
  EXPECT_NE(make_cpu_backend()->device_name().find("threads"),
            std::string::npos);
}

} // namespace
} // namespace quarry::runtime::testing
