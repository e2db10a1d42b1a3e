//===- threads_test.cc - The cpu backend's threads follow its cores -------===//
#include "cpu/threads.h"

#include "quarry/runtime/cpu_backend.h"

#include <gtest/gtest.h>
#include <sched.h>

#include <cstdlib>
#include <optional>
#include <string>

namespace quarry::runtime::cpu {
namespace {

TEST(Threads, ACgroupQuotaIsWholeCoresRoundedUp) {
  EXPECT_EQ(cores_of_cpu_max("200000 100000"), 2);
  EXPECT_EQ(cores_of_cpu_max("150000 100000"), 2);
  EXPECT_EQ(cores_of_cpu_max("50000 100000"), 1);
  EXPECT_EQ(cores_of_cpu_max("max 100000"), std::nullopt);
  EXPECT_EQ(cores_of_cpu_max(""), std::nullopt);
  EXPECT_EQ(cores_of_cpu_max("12x 100000"), std::nullopt);
}

TEST(Threads, ASmallGraphRunsOnOneThread) {
  EXPECT_EQ(threads_for_flops(kParallelFlops - 1, 4), 1);
  EXPECT_EQ(threads_for_flops(kParallelFlops, 4), 4);
  EXPECT_EQ(threads_for_flops(0, 1), 1);
}

/// Runs `f` with OMP_NUM_THREADS unset and the process on CPU `cpu` alone,
/// then puts both back.
template <class F> void on_one_cpu(int cpu, F &&f) {
  cpu_set_t before;
  ASSERT_EQ(sched_getaffinity(0, sizeof before, &before), 0);
  const char *env = std::getenv("OMP_NUM_THREADS");
  const std::optional<std::string> saved =
      env ? std::optional<std::string>(env) : std::nullopt;
  unsetenv("OMP_NUM_THREADS");
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(cpu, &one);
  ASSERT_EQ(sched_setaffinity(0, sizeof one, &one), 0);
  f();
  sched_setaffinity(0, sizeof before, &before);
  if (saved)
    setenv("OMP_NUM_THREADS", saved->c_str(), 1);
}

TEST(Threads, TheAffinityMaskIsHonoured) {
  cpu_set_t set;
  ASSERT_EQ(sched_getaffinity(0, sizeof set, &set), 0);
  int first = 0;
  while (!CPU_ISSET(first, &set))
    ++first;
  on_one_cpu(first, [] {
    EXPECT_EQ(usable_cores(), 1);
    EXPECT_EQ(thread_count(0), 1);
    EXPECT_EQ(thread_count(3), 3); // --threads wins
    // A backend made now runs on one thread, and says so.
    const std::string name = make_cpu_backend()->device_name();
    EXPECT_NE(name.find(", 1 threads"), std::string::npos) << name;
  });
  make_cpu_backend(); // threads for the process's cores again
}

} // namespace
} // namespace quarry::runtime::cpu
