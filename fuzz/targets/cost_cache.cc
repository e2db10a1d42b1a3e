//===- cost_cache.cc - The operator cost file ----------------------------===//
//
// Reads the file (skipping, and rewriting away, records that fail their
// check), then appends one record and reads the file again: the record
// must be found.
//
//===----------------------------------------------------------------------===//
#include "quarry/runtime/cost_cache.h"
#include "fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  using namespace quarry;
  const std::string path =
      fuzz::scratch_file("op_costs.tsv", fuzz::as_text(data, size));
  try {
    runtime::CostCache cache(path);
    cache.insert("fuzz-key", 1.5);
    runtime::CostCache again(path);
    fuzz::require(again.find("fuzz-key") == 1.5,
                  "an inserted record is read back");
  } catch (const Error &) {
  }
  return 0;
}
