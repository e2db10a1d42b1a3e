//===- report.cc - Shard result files -------------------------------------===//
#include "quarry/validate_axioms/report.h"

#include "quarry/core/file_io.h"
#include "quarry/core/hash.h"
#include "quarry/core/json_field.h"
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

EntailmentResult entailment_from(const JsonField &f) {
  EntailmentResult e;
  e.name = f["name"].text();
  e.answer = f["answer"].parsed(
      [](const std::string &s) { return answer_from_name(s); });
  e.by = f["by"].texts();
  e.detail = f["detail"].text();
  e.seconds = f["seconds"].number();
  return e;
}

std::vector<EntailmentResult> entailments_from(const JsonField &f) {
  std::vector<EntailmentResult> out;
  f.for_each([&](const JsonField &e) { out.push_back(entailment_from(e)); });
  return out;
}

SweepCounts counts_from(const JsonField &f) {
  SweepCounts c;
  c.checked = f["checked"].integer<uint64_t>();
  c.skipped = f["skipped"].integer<uint64_t>();
  c.failed = f["failed"].integer<uint64_t>();
  c.filtered = f["filtered"].integer<uint64_t>();
  c.seconds = f["seconds"].number();
  return c;
}

json counts_json(const SweepCounts &c) {
  return {{"cases", c.cases()},     {"checked", c.checked},
          {"skipped", c.skipped},   {"failed", c.failed},
          {"filtered", c.filtered}, {"seconds", c.seconds}};
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
  j["axioms_hash"] = hash_hex(r.axioms_hash);
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
  const JsonField::Json j = JsonField::parse_file(path);
  const JsonField f(j, path);
  f.expect_format(kFormat);
  ValidationReport r;
  r.axioms_file = f["axioms_file"].text();
  r.axioms_hash = f["axioms_hash"].hash();
  r.checker = f.has("checker") ? f["checker"].text() : "";
  r.sizes = f["sizes"].integers<int64_t>();
  r.shard = f["shard"].integer<int>();
  r.shards = f["shards"].integer<int>();
  r.chunk_size = f["chunk_size"].integer<uint64_t>();
  r.checks = f["checks"].texts();
  r.complete = f["complete"].boolean();
  r.wall_seconds = f["wall_seconds"].number();
  if (f.has("lemmas"))
    r.lemmas = entailments_from(f["lemmas"]);
  if (f.has("redundancy"))
    r.redundancy = entailments_from(f["redundancy"]);
  if (f.has("consistency"))
    r.consistency = entailment_from(f["consistency"]);
  if (f.has("chunks")) {
    const JsonField sweep = f["sweep"];
    r.planned_chunks = sweep["chunks_planned"].integer<uint64_t>();
    SweepResult &summary = r.summary.emplace();
    summary.total = counts_from(sweep);
    summary.chunks = sweep["chunks_done"].integer<uint64_t>();
    sweep["axioms"].for_each([&](const JsonField &a) {
      summary.axioms.push_back({a["name"].text(), counts_from(a)});
    });
    // [id, axiom, checked, skipped, failed, filtered, seconds] per chunk.
    f["chunks"].for_each([&](const JsonField &row) {
      ChunkResult c;
      c.id = row.at(0).integer<uint64_t>();
      c.axiom = row.at(1).integer<int>();
      c.counts.checked = row.at(2).integer<uint64_t>();
      c.counts.skipped = row.at(3).integer<uint64_t>();
      c.counts.failed = row.at(4).integer<uint64_t>();
      c.counts.filtered = row.at(5).integer<uint64_t>();
      c.counts.seconds = row.at(6).number();
      r.chunks[c.id] = c;
    });
    f["failures"].for_each([&](const JsonField &e) {
      const JsonField chunk = e["chunk"];
      const uint64_t id = chunk.integer<uint64_t>();
      if (!r.chunks.count(id))
        chunk.fail("names chunk " + std::to_string(id) +
                   ", which the file does not list");
      r.chunks[id].failures.push_back({e["axiom"].text(),
                                       e["case"].integer<uint64_t>(),
                                       e["detail"].text()});
    });
  }
  return r;
}

std::string shard_file(const std::string &dir, int shard, int shards) {
  return dir + "/" + ShardSpec{shard, shards}.file_name();
}

} // namespace quarry::validate_axioms
