//===- run_summary.cc - The stage files `quarry report` reads ------------===//
//
// The first byte picks which of a run's result files the rest becomes
// (generator manifest, verification report, merged validation, optimizer
// report); the run's summary is then read as `quarry report` does.
//
//===----------------------------------------------------------------------===//
#include "quarry/report/run_summary.h"
#include "fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  using namespace quarry;
  if (size == 0)
    return 0;
  static const char *const files[] = {
      "generate/manifest.json", "verify/report.json", "validate/merged.json",
      "optimize/report.json"};
  const auto root = fuzz::scratch_dir() / "run";
  std::filesystem::remove_all(root);
  const char *file = files[data[0] % 4];
  fuzz::scratch_file(std::string("run/") + file,
                     fuzz::as_text(data + 1, size - 1));
  try {
    (void)report::read_run_summary(pipeline::RunLayout(root.string()));
  } catch (const Error &) {
  }
  return 0;
}
