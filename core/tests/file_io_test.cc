//===- file_io_test.cc - Atomic writes, whole or in pieces ----------------===//
#include "quarry/core/file_io.h"
#include "quarry/testing/error_of.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>

namespace quarry {
namespace {

using testing::error_of;

class FileIo : public ::testing::Test {
protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("quarry_file_io_" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  size_t files() const {
    return static_cast<size_t>(
        std::distance(std::filesystem::directory_iterator(dir_), {}));
  }
  std::filesystem::path dir_;
};

TEST_F(FileIo, PiecesAppearOnlyOnCommit) {
  const std::string path = dir_ / "out.bin";
  write_file_atomic(path, "old");
  {
    AtomicFile out(path);
    out.append("new ");
    out.append("bytes");
    EXPECT_EQ(read_file_bytes(path), "old"); // readers see the old file
    out.commit();
    EXPECT_EQ(error_of([&] { out.commit(); }),
              path + ": committed twice, or after a failed write");
  }
  EXPECT_EQ(read_file_bytes(path), "new bytes");
  EXPECT_EQ(files(), 1u);
}

TEST_F(FileIo, AWriterLeftUncommittedLeavesNothing) {
  const std::string path = dir_ / "out.bin";
  {
    AtomicFile out(path);
    out.append("half");
  } // an error on the way, say
  EXPECT_FALSE(std::filesystem::exists(path));
  EXPECT_EQ(files(), 0u);
  EXPECT_EQ(error_of([&] { AtomicFile(dir_ / "missing" / "out.bin"); }),
            (dir_ / "missing" / "out.bin").string() +
                ": cannot create: No such file or directory");
}

} // namespace
} // namespace quarry
