//===- result_json.cc - One rule's result as JSON -------------------------===//
#include "result_json.h"

#include "quarry/core/error.h"

namespace quarry::verify {

using nlohmann::json;

json result_json(const RuleResult &r) {
  json pre = json::array();
  for (const DimEquality &d : r.preconditions)
    pre.push_back({{"var", d.var},
                   {"dim", d.dim},
                   {"other_var", d.other_var},
                   {"other_dim", d.other_dim},
                   {"text", d.str()}});
  json j = {{"index", r.index},
            {"name", r.name},
            {"outcome", outcome_name(r.outcome)},
            {"seconds", r.seconds},
            {"axioms", r.axioms},
            {"preconditions", pre},
            {"detail", r.detail},
            {"rule_hash", hash_hex(r.rule_hash)}};
  if (!r.derivation.empty())
    j["derivation"] = r.derivation;
  if (r.z3_resources)
    j["z3_resources"] = r.z3_resources;
  return j;
}

RuleResult result_from_json(const JsonField &f) {
  RuleResult r;
  r.index = f["index"].integer<size_t>();
  r.name = f["name"].text();
  r.outcome = f["outcome"].parsed(
      [](const std::string &s) { return outcome_from_name(s); });
  r.seconds = f["seconds"].number();
  r.axioms = f["axioms"].texts();
  f["preconditions"].for_each([&](const JsonField &p) {
    r.preconditions.push_back({p["var"].text(), p["dim"].integer<int>(),
                               p["other_var"].text(),
                               p["other_dim"].integer<int>()});
  });
  r.detail = f["detail"].text();
  r.rule_hash = f["rule_hash"].hash();
  if (f.has("derivation"))
    r.derivation = f["derivation"].texts();
  if (f.has("z3_resources"))
    r.z3_resources = f["z3_resources"].integer<uint64_t>();
  return r;
}

} // namespace quarry::verify
