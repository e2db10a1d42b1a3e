//===- rule_pack.cc - quarry rule packs ----------------------------------===//
//
// Parse (either format); an accepted pack serializes, and the bytes parse
// to a pack that serializes to the same bytes, as rule packs must be
// deterministic.
//
//===----------------------------------------------------------------------===//
#include "fuzz_input.h"
#include "quarry/rulepack/rule_pack_io.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  using namespace quarry;
  const auto pack = fuzz::accepted(
      [&] { return parse_rule_pack(fuzz::as_text(data, size), "fuzz.pb"); });
  if (!pack)
    return 0;
  const std::string bytes = serialize_rule_pack(*pack);
  const RulePack again =
      fuzz::must_accept([&] { return parse_rule_pack(bytes, "serialized.pb"); },
                        "the serialized pack");
  fuzz::require(serialize_rule_pack(again) == bytes,
                "serialize(parse(serialize(p))) is stable");
  return 0;
}
