//===- denormals_test.cc - Denormals taken as zero while the cpu runs -----===//
#include "cpu/denormals.h"

#include "quarry/core/text.h"
#include "quarry/runtime/backends.h"
#include "quarry/runtime/cpu_backend.h"
#include "quarry/runtime/reference_backend.h"

#include <gtest/gtest.h>
#include <omp.h>

#include <thread>
#include <vector>

namespace quarry::runtime::cpu {
namespace {

/// Whether each of `threads` OpenMP threads of the calling thread's pool
/// takes denormals as zero.
std::vector<bool> workers_as_zero(int threads) {
  std::vector<char> seen(static_cast<size_t>(threads), 2);
#pragma omp parallel num_threads(threads)
  seen[static_cast<size_t>(omp_get_thread_num())] = denormals_as_zero_now();
  return {seen.begin(), seen.end()};
}

TEST(Denormals, TheCallerAndItsWorkersForAsLongAsTheScope) {
  if (!denormals_as_zero_supported())
    GTEST_SKIP() << "this build cannot take denormals as zero";
  // A thread of its own has an OpenMP pool of its own, made here before
  // any scope, so that its workers start keeping denormals.
  std::thread([] {
    EXPECT_EQ(workers_as_zero(3), std::vector<bool>(3, false));
    {
      const DenormalsAsZero scope(true, 3);
      EXPECT_EQ(workers_as_zero(3), std::vector<bool>(3, true));
    }
    EXPECT_FALSE(denormals_as_zero_now());
    {
      // A later scope that keeps them undoes what the first left behind
      // in the workers.
      const DenormalsAsZero scope(false, 2);
      EXPECT_EQ(workers_as_zero(3), std::vector<bool>(3, false));
    }
    {
      const DenormalsAsZero scope(true, 1);
      EXPECT_TRUE(denormals_as_zero_now());
      // A larger team than the scope's is not its own; the caller, one
      // of them, is.
      const DenormalsAsZero inner(true, 4);
      EXPECT_EQ(workers_as_zero(4), std::vector<bool>(4, true));
    }
    EXPECT_FALSE(denormals_as_zero_now());
  }).join();
}

/// y = x w: what the cpu backend gives for x and w of one value each.
float product(bool as_zero, float x, float w) {
  const Graph g = parse_graph("input x: [1,8]\nweight w: [8,8]\n"
                              "y = matmul(x, w)\noutput y\n");
  BackendOptions o;
  o.threads = 1;
  o.denormals_as_zero = as_zero;
  Bindings<float> values;
  values.emplace("x", Tensor<float>(Shape({1, 8}), std::vector<float>(8, x)));
  values.emplace("w", Tensor<float>(Shape({8, 8}), std::vector<float>(64, w)));
  auto e = make_cpu_backend(o)->prepare(g, values);
  return run_once(*e, values)[0].data[0];
}

TEST(Denormals, ReadAndWrittenAsZeroByDefaultAndKeptOnRequest) {
  if (!denormals_as_zero_supported())
    GTEST_SKIP() << "this build cannot take denormals as zero";
  // A denormal operand (1e-39) is read as zero; a denormal result (8e-40
  // from normal operands) is written as zero.
  EXPECT_EQ(product(true, 1e-39f, 1e30f), 0.0f);
  EXPECT_EQ(product(true, 1e-20f, 1e-20f), 0.0f);
  EXPECT_NEAR(product(false, 1e-39f, 1e30f), 8e-9f, 1e-12f);
  EXPECT_GT(product(false, 1e-20f, 1e-20f), 0.0f);
  // The caller's own mode is back once the run is over.
  EXPECT_FALSE(denormals_as_zero_now());
  EXPECT_NE(make_cpu_backend()->device_name().find("kernels r"),
            std::string::npos);
  BackendOptions keep;
  keep.denormals_as_zero = false;
  EXPECT_NE(make_cpu_backend(keep)->device_name().find(", denormals kept"),
            std::string::npos);
  EXPECT_EQ(make_cpu_backend()->device_name().find("denormals"),
            std::string::npos);
}

} // namespace
} // namespace quarry::runtime::cpu
