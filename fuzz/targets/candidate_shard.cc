//===- candidate_shard.cc - Candidate shards in HDF5 ---------------------===//
#include "fuzz_input.h"
#include "quarry/dedupe/shard.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  using namespace quarry;
  const std::string path = fuzz::scratch_file("candidates-r00000-of-00001.h5",
                                              fuzz::as_text(data, size));
  try {
    (void)read_shard(path);
  } catch (const Error &) {
  }
  return 0;
}
