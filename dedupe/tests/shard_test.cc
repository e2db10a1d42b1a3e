#include "quarry/core/error.h"
#include "quarry/core/file_io.h"
#include "quarry/dedupe/manifest.h"
#include "quarry/dedupe/shard.h"
#include "quarry/testing/scratch_dir.h"

#include <gtest/gtest.h>
#include <hdf5.h>

#include <filesystem>

namespace quarry {
namespace {

using quarry::testing::ScratchDir;

Shard sample_shard() {
  Shard s;
  s.rank = 1;
  s.ranks = 3;
  for (int i = 0; i < 5; ++i) {
    CandidatePair p;
    p.source.record.key = 100 + i % 2; // sources shared between pairs
    p.source.record.fp = 7;
    p.source.record.num_ops = 1;
    p.source.fp2 = 70;
    p.target.record.key = 200 + i;
    p.target.record.fp = 7;
    p.target.record.num_ops = 2;
    p.target.fp2 = 70 + i;
    s.pairs.push_back(p);
  }
  s.stage_counts = {{"graphs", 12}, {"candidates", 5}};
  return s;
}

TEST(Shard, RoundTripsThroughHdf5) {
  const ScratchDir scratch;
  const std::string path = scratch.file(shard_file_name(1, 3));
  EXPECT_EQ(shard_file_name(1, 3), "candidates-r00001-of-00003.h5");
  const Shard s = sample_shard();
  write_shard(path, s);
  EXPECT_FALSE(std::filesystem::exists(path + ".tmp"));
  const Shard r = read_shard(path);
  EXPECT_EQ(r.rank, 1);
  EXPECT_EQ(r.ranks, 3);
  ASSERT_EQ(r.pairs.size(), s.pairs.size());
  for (size_t i = 0; i < s.pairs.size(); ++i) {
    EXPECT_EQ(r.pairs[i].source.record, s.pairs[i].source.record);
    EXPECT_EQ(r.pairs[i].target.record, s.pairs[i].target.record);
    EXPECT_EQ(r.pairs[i].target.fp2, s.pairs[i].target.fp2);
  }
}

TEST(Shard, CorruptAndMissingShardsAreNamed) {
  const ScratchDir scratch;
  const std::string dir = scratch.path();
  const std::string path = dir + "/" + shard_file_name(0, 1);
  write_shard(path, sample_shard());
  std::string bytes = read_file_bytes(path);
  bytes.resize(bytes.size() / 2);
  write_file_atomic(path, bytes);
  try {
    read_shard(path);
    FAIL() << "a truncated shard was read";
  } catch (const Error &e) {
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos);
  }
  try {
    read_shard(dir + "/absent.h5");
    FAIL();
  } catch (const Error &e) {
    EXPECT_EQ(std::string(e.what()), dir + "/absent.h5: missing shard");
  }
}

// Found by fuzzing: a shard whose dataset claims more rows than the file
// can hold must be refused before it sizes a buffer.
TEST(Shard, ADatasetLargerThanItsFileIsRefused) {
  const ScratchDir scratch;
  const std::string path = scratch.file(shard_file_name(0, 1));
  write_shard(path, sample_shard());
  const hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
  ASSERT_GE(H5Ldelete(file, "graphs", H5P_DEFAULT), 0);
  const hsize_t dims[2] = {hsize_t{1} << 40, 48};
  const hid_t space = H5Screate_simple(2, dims, nullptr);
  const hid_t set = H5Dcreate2(file, "graphs", H5T_NATIVE_UINT8, space,
                               H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  ASSERT_GE(set, 0);
  H5Dclose(set);
  H5Sclose(space);
  H5Fclose(file);
  try {
    read_shard(path);
    FAIL() << "a shard claiming 2^40 rows was read";
  } catch (const Error &e) {
    EXPECT_EQ(std::string(e.what()),
              path + ": dataset graphs claims more values than the file "
                     "holds (corrupt)");
  }
}

// Found by fuzzing: HDF5 1.10 trusts the metadata of its older format and
// read freed memory or sized allocations from a corrupt file. Shards carry
// checksummed metadata, and nothing else is read.
TEST(Shard, MetadataIsChecksummedAndOlderFormatsRefused) {
  const ScratchDir scratch;
  const std::string path = scratch.file(shard_file_name(0, 1));
  write_shard(path, sample_shard());
  const std::string good = read_file_bytes(path);
  size_t header = good.find("OHDR");
  ASSERT_NE(header, std::string::npos);
  int refused = 0, flips = 0;
  for (; header != std::string::npos; header = good.find("OHDR", header + 1))
    for (size_t at = header + 4; at < header + 40 && at < good.size(); ++at) {
      std::string bad = good;
      bad[at] = static_cast<char>(bad[at] ^ 0x5a);
      write_file_atomic(path, bad);
      ++flips;
      try {
        read_shard(path);
      } catch (const Error &e) {
        ++refused;
        EXPECT_EQ(std::string(e.what()).rfind(path + ": ", 0), 0u);
      }
    }
  EXPECT_EQ(refused, flips) << "a flipped object header byte was read";

  const std::string old = scratch.file("old.h5");
  const hid_t file =
      H5Fcreate(old.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  ASSERT_GE(file, 0);
  H5Fclose(file);
  try {
    read_shard(old);
    FAIL() << "a shard without metadata checksums was read";
  } catch (const Error &e) {
    EXPECT_EQ(std::string(e.what()),
              old + ": not a quarry shard (HDF5 metadata without checksums; "
                    "shards are written with them)");
  }
}

TEST(Manifest, RoundTripsAndRejectsGarbage) {
  const ScratchDir scratch;
  const std::string path = scratch.file("manifest.json");
  Manifest m;
  m.config_file = "small.gen";
  m.config_text = "input x 2x2\nop relu\n";
  m.config_sha256 = sha256_hex(m.config_text);
  m.seed = 5;
  m.max_ops = 2;
  m.ranks = 2;
  m.shards = {{"a.h5", "ff", 10, 2}, {"b.h5", "ee", 11, 3}};
  m.totals = {{"graphs", 9}, {"candidates", 5}};
  write_manifest(path, m);
  const Manifest r = read_manifest(path);
  EXPECT_EQ(r.config_text, m.config_text);
  EXPECT_EQ(r.shards.size(), 2u);
  EXPECT_EQ(r.shards[1].pairs, 3u);
  EXPECT_EQ(r.totals, m.totals);
  EXPECT_EQ(sha256_hex("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  write_file_atomic(path, "{not json");
  EXPECT_THROW(read_manifest(path), Error);
  // Found by fuzzing (in a validation report): an integer field holding a
  // float no integer holds was cast, which C++ leaves undefined.
  write_manifest(path, m);
  std::string text = read_file_bytes(path);
  const size_t seed = text.find("\"seed\": 5");
  ASSERT_NE(seed, std::string::npos) << text;
  text.replace(seed, 9, "\"seed\": 2.5e106");
  write_file_atomic(path, text);
  try {
    read_manifest(path);
    FAIL() << "a seed of 2.5e106 was read";
  } catch (const Error &e) {
    EXPECT_EQ(std::string(e.what()), path + ": seed: expected an integer");
  }
}

} // namespace
} // namespace quarry
