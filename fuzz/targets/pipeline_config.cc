//===- pipeline_config.cc - Pipeline settings ----------------------------===//
//
// Parse; an accepted config formats, and the formatted text parses to the
// same settings (formats the same again), as a resumed run relies on.
//
//===----------------------------------------------------------------------===//
#include "fuzz_input.h"
#include "quarry/pipeline/config.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  using namespace quarry::pipeline;
  const std::string base = quarry::fuzz::scratch_dir().string();
  const auto c = quarry::fuzz::accepted([&] {
    return parse_pipeline_config(std::string(quarry::fuzz::as_text(data, size)),
                                 "fuzz.pipeline", base);
  });
  if (!c)
    return 0;
  const std::string text = format_pipeline_config(*c);
  const PipelineConfig again = quarry::fuzz::must_accept(
      [&] { return parse_pipeline_config(text, "formatted.pipeline", base); },
      "the formatted config");
  quarry::fuzz::require(format_pipeline_config(again) == text,
                        "parse(format(c)) formats as c");
  return 0;
}
