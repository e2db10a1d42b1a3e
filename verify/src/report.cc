//===- report.cc - The JSON report of a verification run ------------------===//
#include "quarry/verify/report.h"

#include "quarry/core/file_io.h"
#include "quarry/core/hash.h"
#include "quarry/core/json_integer.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <filesystem>

namespace quarry::verify {

namespace {

using nlohmann::json;

constexpr const char *kFormat = "quarry.verify-report.v1";

std::string hex(uint64_t v) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
  return buf;
}

json result_json(const RuleResult &r) {
  json pre = json::array();
  for (const DimEquality &d : r.preconditions)
    pre.push_back({{"var", d.var},
                   {"dim", d.dim},
                   {"other_var", d.other_var},
                   {"other_dim", d.other_dim},
                   {"text", d.str()}});
  return {{"index", r.index},
          {"name", r.name},
          {"outcome", outcome_name(r.outcome)},
          {"seconds", r.seconds},
          {"axioms", r.axioms},
          {"preconditions", pre},
          {"detail", r.detail},
          {"rule_hash", hex(r.rule_hash)}};
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
  const std::string hash = j.at("rule_hash").get<std::string>();
  const auto [end, error] =
      std::from_chars(hash.data(), hash.data() + hash.size(), r.rule_hash, 16);
  if (error != std::errc() || end != hash.data() + hash.size() || hash.empty())
    throw Error("rule " + std::to_string(r.index) + ": rule_hash '" + hash +
                "' is not a hexadecimal hash");
  return r;
}

} // namespace

Totals totals(const std::vector<RuleResult> &results) {
  Totals t;
  std::vector<double> secs;
  for (const RuleResult &r : results) {
    ++t.rules;
    switch (r.outcome) {
    case Outcome::Proved:
      ++t.proved;
      break;
    case Outcome::ProvedWithPrecondition:
      ++t.proved_with_precondition;
      break;
    case Outcome::Unproved:
      ++t.unproved;
      break;
    case Outcome::Refuted:
      ++t.refuted;
      break;
    }
    secs.push_back(r.seconds);
  }
  if (!secs.empty()) {
    std::sort(secs.begin(), secs.end());
    const size_t n = secs.size();
    t.median_seconds =
        n % 2 ? secs[n / 2] : (secs[n / 2 - 1] + secs[n / 2]) / 2;
    t.max_seconds = secs.back();
  }
  return t;
}

uint64_t axiom_files_hash(const AxiomFile &file) {
  uint64_t h = 0;
  for (const std::string &f : file.files)
    h = hash_combine(h, hash_bytes(read_file_bytes(f)));
  return h;
}

std::string report_json(const ReportInfo &info,
                        const std::vector<RuleResult> &results) {
  json rules = json::array();
  for (const RuleResult &r : results)
    rules.push_back(result_json(r));
  const Totals t = totals(results);
  json j = {{"format", kFormat},
            {"complete", info.complete},
            {"axioms_file", info.axioms_file},
            {"axioms_hash", hex(info.axioms_hash)},
            {"rules_file", info.rules_file},
            {"timeout_s", info.options.timeout_s},
            {"threads", info.options.threads},
            {"minimize_core", info.options.minimize_core},
            {"rules", rules},
            {"totals",
             {{"rules", t.rules},
              {"proved", t.proved},
              {"proved_with_precondition", t.proved_with_precondition},
              {"unproved", t.unproved},
              {"refuted", t.refuted},
              {"median_seconds", t.median_seconds},
              {"max_seconds", t.max_seconds},
              {"wall_seconds", info.wall_seconds}}}};
  return j.dump(2) + "\n";
}

std::vector<std::optional<RuleResult>>
resumable_results(const std::string &report_path, uint64_t axioms_hash,
                  const std::vector<Rule> &rules) {
  std::vector<std::optional<RuleResult>> out(rules.size());
  if (!std::filesystem::exists(report_path))
    return out;
  json j;
  try {
    j = json::parse(read_file_bytes(report_path));
    if (j.at("format").get<std::string>() != kFormat)
      throw Error("not a quarry verification report");
    if (j.at("axioms_hash").get<std::string>() != hex(axioms_hash))
      return out; // other axioms: nothing carries over
    for (const json &e : j.at("rules")) {
      RuleResult r = result_from_json(e);
      if (r.index < rules.size() && r.rule_hash == rule_hash(rules[r.index]))
        out[r.index] = std::move(r);
    }
  } catch (const Error &e) {
    throw Error(report_path + ": cannot resume: " + e.what());
  } catch (const json::exception &e) {
    throw Error(report_path + ": cannot resume: malformed report (" +
                std::string(e.what()) + ")");
  }
  return out;
}

} // namespace quarry::verify
