//===- report.cc - The JSON report of a verification run ------------------===//
#include "quarry/verify/report.h"

#include "quarry/core/file_io.h"
#include "quarry/core/hash.h"
#include "quarry/core/json_field.h"
#include "result_json.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>

namespace quarry::verify {

namespace {

using nlohmann::json;

constexpr const char *kFormat = "quarry.verify-report.v1";

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
            {"axioms_hash", hash_hex(info.axioms_hash)},
            {"prover", info.prover},
            {"rules_file", info.rules_file},
            {"rules_hash", hash_hex(info.rules_hash)},
            {"input_rules", info.input_rules},
            {"shard", info.shard.str()},
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

namespace {

/// A report from its text, read from `file` (named in errors).
Report parse_report(const std::string &text, const std::string &file) {
  const JsonField::Json j = JsonField::parse_text(text, file);
  const JsonField f(j, file);
  f.expect_format(kFormat);
  Report r;
  ReportInfo &info = r.info;
  info.complete = f["complete"].boolean();
  info.axioms_file = f["axioms_file"].text();
  info.axioms_hash = f["axioms_hash"].hash();
  info.prover = f.has("prover") ? f["prover"].text() : "";
  info.rules_file = f["rules_file"].text();
  // Reports of unsharded runs before 2026-11 lack these three.
  if (f.has("rules_hash"))
    info.rules_hash = f["rules_hash"].hash();
  if (f.has("input_rules"))
    info.input_rules = f["input_rules"].integer<size_t>();
  if (f.has("shard"))
    info.shard =
        f["shard"].parsed([](const std::string &s) { return parse_shard(s); });
  info.options.timeout_s = f["timeout_s"].number();
  info.options.threads = f["threads"].integer<int>();
  info.options.minimize_core = f["minimize_core"].boolean();
  info.wall_seconds = f["totals"]["wall_seconds"].number();
  f["rules"].for_each(
      [&](const JsonField &e) { r.results.push_back(result_from_json(e)); });
  return r;
}

} // namespace

Report read_report(const std::string &path) {
  return parse_report(read_file_bytes(path), path);
}

uint64_t rules_hash(const std::vector<Rule> &rules) {
  uint64_t h = hash_bytes("quarry.rules");
  for (const Rule &r : rules)
    h = hash_combine(h, rule_hash(r));
  return h;
}

Report merge_shard_reports(const std::string &dir) {
  const std::vector<std::string> files = shard_files(dir);
  const int count = static_cast<int>(files.size());
  Report merged;
  std::vector<std::optional<RuleResult>> by_index;
  for (int i = 0; i < count; ++i) {
    const std::string &path = files[i];
    Report r = read_report(path);
    const ReportInfo &info = r.info;
    if (info.shard.index != i || info.shard.count != count)
      throw Error(path + ": holds shard " + info.shard.str());
    if (!info.complete)
      throw Error(path + ": the shard has not finished (rerun it)");
    if (i == 0) {
      merged.info = info;
      merged.info.shard = ShardSpec{};
      by_index.resize(info.input_rules);
    } else if (info.rules_hash != merged.info.rules_hash ||
               info.input_rules != merged.info.input_rules) {
      throw Error(path + ": made from other rules than " + files[0]);
    } else if (info.axioms_hash != merged.info.axioms_hash) {
      throw Error(path + ": made with other axioms than " + files[0]);
    }
    if (info.prover != prover_identity())
      throw Error(path + ": made by prover '" + info.prover + "', not '" +
                  prover_identity() + "' (rerun the shard)");
    merged.info.wall_seconds =
        std::max(merged.info.wall_seconds, info.wall_seconds);
    for (RuleResult &res : r.results) {
      if (res.index >= by_index.size() || !info.shard.holds(res.index) ||
          by_index[res.index])
        throw Error(path + ": rule " + std::to_string(res.index) +
                    " is not one of shard " + info.shard.str() + "'s rules");
      by_index[res.index] = std::move(res);
    }
    for (size_t k = i; k < by_index.size(); k += count)
      if (!by_index[k])
        throw Error(path + ": rule " + std::to_string(k) +
                    " has no result (rerun the shard)");
  }
  for (std::optional<RuleResult> &res : by_index)
    merged.results.push_back(std::move(*res));
  return merged;
}

void check_report_matches(const Report &report, const std::vector<Rule> &rules,
                          const std::string &report_path) {
  if (report.results.size() != rules.size() ||
      (report.info.rules_hash && report.info.rules_hash != rules_hash(rules)))
    throw Error(report_path + ": made from other rules than " +
                report.info.rules_file + " holds now");
  for (size_t i = 0; i < rules.size(); ++i)
    if (report.results[i].index != i ||
        report.results[i].rule_hash != rule_hash(rules[i]))
      throw Error(report_path + ": rule " + std::to_string(i) +
                  " differs from rule " + std::to_string(i) + " of " +
                  report.info.rules_file);
}

std::string journal_path(const std::string &report_path) {
  return report_path + ".journal";
}

std::string journal_header(uint64_t axioms_hash) {
  return json{{"format", "quarry.verify-journal.v1"},
              {"axioms_hash", hash_hex(axioms_hash)},
              {"prover", prover_identity()}}
      .dump();
}

std::string journal_line(const RuleResult &result) {
  return result_json(result).dump();
}

std::vector<std::optional<RuleResult>>
resumable_results(const std::string &report_path, uint64_t axioms_hash,
                  const std::vector<Rule> &rules) {
  std::vector<std::optional<RuleResult>> out(rules.size());
  auto take = [&](RuleResult r) {
    if (r.index < rules.size() && r.rule_hash == rule_hash(rules[r.index]))
      out[r.index] = std::move(r);
  };
  if (std::filesystem::exists(report_path)) {
    Report earlier;
    try {
      earlier = read_report(report_path);
    } catch (const Error &e) {
      throw Error(std::string(e.what()) + " (cannot resume from it)");
    }
    // Other axioms or another prover: nothing carries over.
    if (earlier.info.axioms_hash == axioms_hash &&
        earlier.info.prover == prover_identity())
      for (RuleResult &r : earlier.results)
        take(std::move(r));
  }
  const std::string journal = journal_path(report_path);
  const std::vector<std::string> lines = read_complete_lines(journal);
  if (lines.empty() || lines[0] != journal_header(axioms_hash))
    return out;
  for (size_t k = 1; k < lines.size(); ++k) {
    const std::string line = journal + ":" + std::to_string(k + 1);
    try {
      const JsonField::Json j = JsonField::parse_text(lines[k], line);
      take(result_from_json(JsonField(j, line)));
    } catch (const Error &e) {
      throw Error(std::string(e.what()) + " (cannot resume from it)");
    }
  }
  return out;
}

} // namespace quarry::verify
