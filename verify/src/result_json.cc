//===- result_json.cc - One rule's result as JSON -------------------------===//
#include "result_json.h"

#include "quarry/core/error.h"
#include "quarry/core/json_integer.h"

#include <charconv>
#include <cstdio>

namespace quarry::verify {

using nlohmann::json;

std::string hash_hex(uint64_t v) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
  return buf;
}

uint64_t hash_from_hex(const std::string &text, const std::string &what) {
  uint64_t v = 0;
  const auto [end, error] =
      std::from_chars(text.data(), text.data() + text.size(), v, 16);
  if (error != std::errc() || end != text.data() + text.size() || text.empty())
    throw Error(what + " '" + text + "' is not a hexadecimal hash");
  return v;
}

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

RuleResult result_from_json(const json &j) {
  RuleResult r;
  r.index = json_integer<size_t>(j.at("index"));
  r.name = j.at("name").get<std::string>();
  r.outcome = outcome_from_name(j.at("outcome").get<std::string>());
  r.seconds = j.at("seconds").get<double>();
  r.axioms = j.at("axioms").get<std::vector<std::string>>();
  for (const json &p : j.at("preconditions"))
    r.preconditions.push_back({p.at("var").get<std::string>(),
                               json_integer<int>(p.at("dim")),
                               p.at("other_var").get<std::string>(),
                               json_integer<int>(p.at("other_dim"))});
  r.detail = j.at("detail").get<std::string>();
  r.rule_hash =
      hash_from_hex(j.at("rule_hash").get<std::string>(),
                    "rule " + std::to_string(r.index) + ": rule_hash");
  if (j.contains("derivation"))
    r.derivation = j.at("derivation").get<std::vector<std::string>>();
  if (j.contains("z3_resources"))
    r.z3_resources = json_integer<uint64_t>(j.at("z3_resources"));
  return r;
}

} // namespace quarry::verify
