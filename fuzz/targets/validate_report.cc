//===- validate_report.cc - validate-axioms shard reports (resume, merge) -===//
#include "fuzz_input.h"
#include "quarry/validate_axioms/report.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  using namespace quarry;
  const std::string path =
      fuzz::scratch_file("shard-0-of-1.json", fuzz::as_text(data, size));
  try {
    (void)validate_axioms::read_report(path);
  } catch (const Error &) {
  }
  return 0;
}
