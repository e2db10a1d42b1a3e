//===- generate_manifest.cc - A generator run's manifest (resume, merge) -===//
#include "fuzz_input.h"
#include "quarry/dedupe/manifest.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  using namespace quarry;
  const std::string path =
      fuzz::scratch_file("manifest.json", fuzz::as_text(data, size));
  try {
    (void)read_manifest(path);
  } catch (const Error &) {
  }
  return 0;
}
