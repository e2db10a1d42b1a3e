//===- taso_rules.cc - TASO rule collections -----------------------------===//
//
// Import; an imported collection serializes as a quarry pack that parses
// back to the same bytes.
//
//===----------------------------------------------------------------------===//
#include "fuzz_input.h"
#include "quarry/rulepack/rule_pack_io.h"
#include "quarry/rulepack/taso_import.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  using namespace quarry;
  const auto pack = fuzz::accepted([&] {
    return import_taso_rules_from_bytes(fuzz::as_text(data, size),
                                        "fuzz_subst.pb");
  });
  if (!pack)
    return 0;
  const std::string bytes = serialize_rule_pack(*pack);
  const RulePack again =
      fuzz::must_accept([&] { return parse_rule_pack(bytes, "imported.pb"); },
                        "the imported pack");
  fuzz::require(serialize_rule_pack(again) == bytes,
                "an imported collection round-trips as a quarry pack");
  return 0;
}
