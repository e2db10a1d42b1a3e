//===- cost_cache_test.cc - Restart, corruption, concurrent writers -------===//
#include "quarry/core/file_io.h"
#include "quarry/runtime/cost_cache.h"
#include "quarry/runtime/cpu_backend.h"
#include "quarry/testing/scratch_dir.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

namespace quarry::runtime {
namespace {

using quarry::testing::ScratchDir;

std::string key_of(int writer, int i) {
  return "cpu\ttest device\trelu(x[" + std::to_string(writer) + "," +
         std::to_string(i) + "])";
}

TEST(CostCache, SurvivesARestart) {
  const ScratchDir scratch;
  const std::string path = scratch.file("restart");
  {
    CostCache c(path);
    c.insert(key_of(0, 1), 1.25);
    c.insert(key_of(0, 2), 0.5);
    c.insert(key_of(0, 1), 1.5); // a later record wins
  }
  CostCache again(path);
  EXPECT_TRUE(again.warnings().empty());
  EXPECT_EQ(again.size(), 2u);
  EXPECT_EQ(again.find(key_of(0, 1)), 1.5);
  EXPECT_EQ(again.find(key_of(0, 2)), 0.5);
  EXPECT_FALSE(again.find(key_of(0, 3)));
}

TEST(CostCache, SkipsAndRemovesCorruptRecords) {
  const ScratchDir scratch;
  const std::string path = scratch.file("corrupt");
  {
    CostCache c(path);
    c.insert(key_of(0, 1), 1.0);
    c.insert(key_of(0, 2), 2.0);
    c.insert(key_of(0, 3), 3.0);
  }
  std::string bytes = read_file_bytes(path);
  // Change the second record's cost without fixing its check, add a line
  // of garbage, and leave a torn record at the end.
  const size_t second = bytes.find('\n') + 1;
  const size_t num = bytes.find("\t2\t", second);
  ASSERT_NE(num, std::string::npos);
  bytes[num + 1] = '9';
  bytes += "not a record\n";
  bytes += "q1\tcpu\ttest device\trelu(x[9,9])\t1.0";
  write_file_atomic(path, bytes);

  CostCache c(path);
  EXPECT_EQ(c.size(), 2u);
  EXPECT_EQ(c.find(key_of(0, 1)), 1.0);
  EXPECT_FALSE(c.find(key_of(0, 2)));
  EXPECT_EQ(c.find(key_of(0, 3)), 3.0);
  ASSERT_EQ(c.warnings().size(), 4u); // three records and the rewrite
  EXPECT_NE(c.warnings()[0].find(path + ":2:"), std::string::npos);
  EXPECT_NE(c.warnings()[3].find("rewritten without 3 corrupt records"),
            std::string::npos);
  // The file now holds only good records.
  CostCache clean(path);
  EXPECT_TRUE(clean.warnings().empty());
  EXPECT_EQ(clean.size(), 2u);
}

TEST(CostCache, AppendsWholeRecordsAfterATornOne) {
  const ScratchDir scratch;
  const std::string path = scratch.file("torn");
  write_file_atomic(path, "q1\tcpu\tdev\trelu(x[1])\t1.0"); // no newline
  {
    CostCache c(path);
    c.insert(key_of(0, 1), 4.0);
  }
  CostCache again(path);
  EXPECT_EQ(again.find(key_of(0, 1)), 4.0);
}

constexpr int kWriters = 6, kRecords = 40;

void write_records(const std::string &path, int writer) {
  for (int i = 0; i < kRecords; ++i) {
    CostCache c(path); // re-read each time, as separate runs would
    c.insert(key_of(writer, i), writer + i / 1000.0);
  }
}

void expect_all_records(const std::string &path) {
  CostCache c(path);
  EXPECT_TRUE(c.warnings().empty());
  EXPECT_EQ(c.size(), static_cast<size_t>(kWriters * kRecords));
  for (int w = 0; w < kWriters; ++w)
    for (int i = 0; i < kRecords; ++i)
      EXPECT_EQ(c.find(key_of(w, i)), w + i / 1000.0) << w << " " << i;
}

TEST(CostCache, ConcurrentProcessesLoseNothing) {
  const ScratchDir scratch;
  const std::string path = scratch.file("processes");
  std::vector<pid_t> children;
  for (int w = 0; w < kWriters; ++w) {
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      write_records(path, w);
      std::_Exit(0);
    }
    children.push_back(pid);
  }
  for (pid_t pid : children) {
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  expect_all_records(path);
}

TEST(CostCache, ConcurrentThreadsLoseNothing) {
  const ScratchDir scratch;
  const std::string path = scratch.file("threads");
  std::vector<std::thread> threads;
  for (int w = 0; w < kWriters; ++w)
    threads.emplace_back(write_records, path, w);
  for (auto &t : threads)
    t.join();
  expect_all_records(path);
}

TEST(CostCache, MeasuresOnceThenReads) {
  const ScratchDir scratch;
  const std::string path = scratch.file("measure");
  auto cpu = make_cpu_backend();
  const OpConfig relu{OpKind::Relu, Attrs{}, {Shape{4, 16}}, {false}};
  bool measured = false;
  CostCache c(path);
  // No canary: other tests may keep the machine busy, and this one is
  // about the cache.
  const MeasureOptions quiet{1, 3, 1, 3, false};
  const double first = cached_measure(c, *cpu, relu, quiet, &measured);
  EXPECT_TRUE(measured);
  EXPECT_GE(first, 0.0);
  CostCache again(path);
  EXPECT_EQ(cached_measure(again, *cpu, relu, quiet, &measured), first);
  EXPECT_FALSE(measured);
}

TEST(CostCache, AMeasurementIsStoredOnlyWhenTheCanaryRanAtItsBest) {
  const ScratchDir scratch;
  const std::string path = scratch.file("canary");
  auto cpu = make_cpu_backend();
  const OpConfig relu{OpKind::Relu, Attrs{}, {Shape{4, 16}}, {false}};
  const std::string canary =
      CostCache::key(cpu->name(), cpu->device_name(), canary_config());
  {
    // The canary's fastest time is kept beside the measurement, which is
    // stored unless the machine (busy with other tests, say) was not
    // steady on any attempt.
    CostCache c(path);
    bool measured = false;
    cached_measure(c, *cpu, relu, {1, 3, 1}, &measured);
    EXPECT_TRUE(measured);
    ASSERT_TRUE(c.find(canary).has_value());
    EXPECT_GT(*c.find(canary), 0.0);
    EXPECT_NE(c.find(CostCache::key(cpu->name(), cpu->device_name(), relu))
                  .has_value(),
              c.unsteady() == 1);
  }
  // A machine that once ran the canary a thousand times faster than it
  // can now is always busy: what it measures is returned, never stored.
  const OpConfig other{OpKind::Relu, Attrs{}, {Shape{8, 16}}, {false}};
  CostCache c(path);
  c.insert(canary, 1e-6);
  bool measured = false;
  EXPECT_GE(cached_measure(c, *cpu, other, {1, 3, 1, 2}, &measured), 0.0);
  EXPECT_TRUE(measured);
  EXPECT_EQ(c.unsteady(), 1);
  EXPECT_FALSE(CostCache(path)
                   .find(CostCache::key(cpu->name(), cpu->device_name(), other))
                   .has_value());
}

TEST(CostCache, UnwritablePathIsAClearError) {
  EXPECT_THROW(CostCache("/proc/quarry/costs"), Error);
}

} // namespace
} // namespace quarry::runtime
