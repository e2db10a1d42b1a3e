//===- shard_spec_test.cc - Shards of a job and line journals -------------===//
#include "quarry/core/file_io.h"
#include "quarry/core/shard_spec.h"
#include "quarry/testing/error_of.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>

namespace quarry {
namespace {

using testing::error_of;

TEST(ShardSpec, ParsesAndDealsItemsRoundRobin) {
  const ShardSpec s = parse_shard("1/3");
  EXPECT_EQ(s.index, 1);
  EXPECT_EQ(s.count, 3);
  EXPECT_EQ(s.str(), "1/3");
  EXPECT_EQ(s.file_name(), "shard-1-of-3.json");
  EXPECT_FALSE(s.holds(0));
  EXPECT_TRUE(s.holds(1));
  EXPECT_TRUE(s.holds(4));
  EXPECT_TRUE(ShardSpec{}.holds(7)); // the whole job
  for (const char *bad : {"3/3", "-1/2", "1", "a/2", "1/0", "1/2x", "/2", ""})
    EXPECT_EQ(error_of([&] { parse_shard(bad); }),
              "--shard expects I/N with 0 <= I < N, got '" + std::string(bad) +
                  "'")
        << bad;
}

TEST(ShardSpec, ShardFilesAreFoundInOrderOrNamedWhenMissing) {
  const std::string dir = std::filesystem::temp_directory_path() /
                          ("quarry_shards_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  EXPECT_EQ(error_of([&] { shard_files(dir); }), dir + ": not a directory");
  std::filesystem::create_directories(dir);
  EXPECT_EQ(error_of([&] { shard_files(dir); }),
            dir + ": no shard-I-of-N.json files");
  for (const char *f : {"shard-1-of-2.json", "shard-0-of-2.json", "x.json"})
    write_file_atomic(dir + "/" + f, "{}");
  EXPECT_EQ(shard_files(dir),
            (std::vector<std::string>{dir + "/shard-0-of-2.json",
                                      dir + "/shard-1-of-2.json"}));
  std::filesystem::remove(dir + "/shard-1-of-2.json");
  EXPECT_EQ(error_of([&] { shard_files(dir); }),
            dir + "/shard-1-of-2.json: missing (shard 1/2 has not run)");
  write_file_atomic(dir + "/shard-0-of-3.json", "{}");
  EXPECT_EQ(error_of([&] { shard_files(dir); }),
            dir + ": shard files of 2 and of 3 shards are mixed");
  std::filesystem::remove_all(dir);
}

TEST(LineJournal, KeepsWholeLinesAndDropsATornLast) {
  const std::string path = std::filesystem::temp_directory_path() /
                           ("quarry_journal_" + std::to_string(::getpid()));
  std::filesystem::remove(path);
  EXPECT_TRUE(read_complete_lines(path).empty()); // none yet
  {
    LineJournal j(path, /*exclusive=*/true);
    j.append("one");
    j.append("");
    j.append("three");
  }
  EXPECT_EQ(read_complete_lines(path),
            (std::vector<std::string>{"one", "", "three"}));
  EXPECT_NE(error_of([&] {
              LineJournal(path, /*exclusive=*/true);
            }).find(path + ": cannot open for appending"),
            std::string::npos);
  // A writer killed mid-line leaves it without its newline.
  {
    LineJournal j(path, /*exclusive=*/false);
    j.append("four");
  }
  write_file_atomic(path, read_file_bytes(path) + "fi");
  EXPECT_EQ(read_complete_lines(path).size(), 4u);
  std::filesystem::remove(path);
}

} // namespace
} // namespace quarry
