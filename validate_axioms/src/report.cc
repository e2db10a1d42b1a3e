//===- report.cc - Shard result files -------------------------------------===//
#include "quarry/validate_axioms/report.h"

#include "quarry/core/file_io.h"
#include "quarry/core/json_integer.h"
#include "quarry/core/shard_spec.h"

#include <nlohmann/json.hpp>

#include <cinttypes>
#include <cstdio>

namespace quarry::validate_axioms {

namespace {

using nlohmann::json;

constexpr const char *kFormat = "quarry.validate-axioms.v1";

json entailment_json(const EntailmentResult &e) {
  return {{"name", e.name},
          {"answer", answer_name(e.answer)},
          {"by", e.by},
          {"detail", e.detail},
          {"seconds", e.seconds}};
}

EntailmentResult entailment_from(const json &j) {
  EntailmentResult e;
  e.name = j.at("name").get<std::string>();
  e.answer = answer_from_name(j.at("answer").get<std::string>());
  e.by = j.at("by").get<std::vector<std::string>>();
  e.detail = j.at("detail").get<std::string>();
  e.seconds = j.at("seconds").get<double>();
  return e;
}

json counts_json(const SweepCounts &c) {
  return {{"cases", c.cases()},     {"checked", c.checked},
          {"skipped", c.skipped},   {"failed", c.failed},
          {"filtered", c.filtered}, {"seconds", c.seconds}};
}

std::string hex(uint64_t v) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016" PRIx64, v);
  return buf;
}

} // namespace

bool has_problems(const ValidationReport &r) {
  for (const auto &[id, c] : r.chunks)
    if (c.counts.failed)
      return true;
  if (r.consistency && r.consistency->answer == Answer::Entailed)
    return true;
  if (r.lemmas)
    for (const EntailmentResult &e : *r.lemmas)
      if (e.answer == Answer::NotEntailed)
        return true;
  if (r.redundancy)
    for (const EntailmentResult &e : *r.redundancy)
      if (e.answer == Answer::Entailed)
        return true;
  return false;
}

std::string report_json(const verify::AxiomFile &file,
                        const ValidationReport &r) {
  json j;
  j["format"] = kFormat;
  j["axioms_file"] = r.axioms_file;
  j["axioms_hash"] = hex(r.axioms_hash);
  j["checker"] = r.checker;
  j["sizes"] = r.sizes;
  j["shard"] = r.shard;
  j["shards"] = r.shards;
  j["chunk_size"] = r.chunk_size;
  j["checks"] = r.checks;
  j["complete"] = r.complete;
  j["wall_seconds"] = r.wall_seconds;
  j["problems"] = has_problems(r);
  if (r.lemmas) {
    j["lemmas"] = json::array();
    for (const EntailmentResult &e : *r.lemmas)
      j["lemmas"].push_back(entailment_json(e));
  }
  if (r.redundancy) {
    j["redundancy"] = json::array();
    for (const EntailmentResult &e : *r.redundancy)
      j["redundancy"].push_back(entailment_json(e));
  }
  if (r.consistency)
    j["consistency"] = entailment_json(*r.consistency);
  if (std::count(r.checks.begin(), r.checks.end(), "sweep")) {
    std::vector<ChunkResult> chunks;
    json rows = json::array(), failures = json::array();
    for (const auto &[id, c] : r.chunks) {
      chunks.push_back(c);
      rows.push_back({c.id, c.axiom, c.counts.checked, c.counts.skipped,
                      c.counts.failed, c.counts.filtered, c.counts.seconds});
      for (const Failure &f : c.failures)
        failures.push_back({{"chunk", c.id},
                            {"axiom", f.axiom},
                            {"case", f.case_index},
                            {"detail", f.detail}});
    }
    const SweepResult s = summarize(file, chunks);
    json summary = counts_json(s.total);
    summary["chunks_done"] = r.chunks.size();
    summary["chunks_planned"] = r.planned_chunks;
    summary["cases_per_cpu_second"] =
        s.total.seconds > 0 ? s.total.cases() / s.total.seconds : 0;
    summary["axioms"] = json::array();
    for (const AxiomSweep &a : s.axioms) {
      json row = counts_json(a.counts);
      row["name"] = a.name;
      summary["axioms"].push_back(row);
    }
    j["sweep"] = summary;
    // [id, axiom, checked, skipped, failed, filtered, seconds] per chunk.
    j["chunks"] = rows;
    j["failures"] = failures;
  }
  return j.dump(1) + "\n";
}

ValidationReport read_report(const std::string &path) {
  const std::string text = read_file_bytes(path);
  ValidationReport r;
  try {
    const json j = json::parse(text);
    if (j.at("format") != kFormat)
      throw Error(path + ": not a quarry.validate-axioms.v1 file");
    r.axioms_file = j.at("axioms_file").get<std::string>();
    r.axioms_hash =
        std::stoull(j.at("axioms_hash").get<std::string>(), nullptr, 16);
    r.checker = j.value("checker", "");
    r.sizes = json_integers<int64_t>(j.at("sizes"));
    r.shard = json_integer<int>(j.at("shard"));
    r.shards = json_integer<int>(j.at("shards"));
    r.chunk_size = json_integer<uint64_t>(j.at("chunk_size"));
    r.checks = j.at("checks").get<std::vector<std::string>>();
    r.complete = j.at("complete").get<bool>();
    r.wall_seconds = j.at("wall_seconds").get<double>();
    if (j.contains("lemmas")) {
      r.lemmas.emplace();
      for (const json &e : j["lemmas"])
        r.lemmas->push_back(entailment_from(e));
    }
    if (j.contains("redundancy")) {
      r.redundancy.emplace();
      for (const json &e : j["redundancy"])
        r.redundancy->push_back(entailment_from(e));
    }
    if (j.contains("consistency"))
      r.consistency = entailment_from(j["consistency"]);
    if (j.contains("chunks")) {
      r.planned_chunks =
          json_integer<uint64_t>(j.at("sweep").at("chunks_planned"));
      for (const json &row : j["chunks"]) {
        ChunkResult c;
        c.id = json_integer<uint64_t>(row.at(0));
        c.axiom = json_integer<int>(row.at(1));
        c.counts.checked = json_integer<uint64_t>(row.at(2));
        c.counts.skipped = json_integer<uint64_t>(row.at(3));
        c.counts.failed = json_integer<uint64_t>(row.at(4));
        c.counts.filtered = json_integer<uint64_t>(row.at(5));
        c.counts.seconds = row.at(6).get<double>();
        r.chunks[c.id] = c;
      }
      for (const json &f : j.at("failures")) {
        const uint64_t id = json_integer<uint64_t>(f.at("chunk"));
        if (!r.chunks.count(id))
          throw Error(path + ": a failure names chunk " + std::to_string(id) +
                      ", which the file does not list");
        r.chunks[id].failures.push_back({f.at("axiom").get<std::string>(),
                                         json_integer<uint64_t>(f.at("case")),
                                         f.at("detail").get<std::string>()});
      }
    }
  } catch (const json::exception &e) {
    throw Error(path + ": malformed validation report: " + e.what());
  } catch (const std::logic_error &e) {
    throw Error(path + ": malformed validation report: " + e.what());
  }
  return r;
}

std::string shard_file(const std::string &dir, int shard, int shards) {
  return dir + "/" + ShardSpec{shard, shards}.file_name();
}

} // namespace quarry::validate_axioms
