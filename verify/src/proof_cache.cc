//===- proof_cache.cc - Proof outcomes kept across runs -------------------===//
#include "quarry/verify/proof_cache.h"

#include "quarry/core/error.h"
#include "quarry/core/file_io.h"
#include "quarry/core/json_field.h"
#include "result_json.h"

#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <set>

namespace quarry::verify {

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr const char *kFormat = "quarry.proof-cache.v1";

std::string host_name() {
  char buf[256] = {};
  if (gethostname(buf, sizeof buf - 1) != 0)
    return "host";
  return buf;
}

/// Whether outcome `a` (reached within `a_timeout`) tells more than `b`.
bool better(const RuleResult &a, double a_timeout, const RuleResult &b,
            double b_timeout) {
  const bool a_decided = a.outcome != Outcome::Unproved;
  const bool b_decided = b.outcome != Outcome::Unproved;
  if (a_decided != b_decided)
    return a_decided;
  return !a_decided && a_timeout > b_timeout;
}

} // namespace

ProofCache::ProofCache(const std::string &dir, uint64_t axioms_hash,
                       const std::string &axioms_file,
                       const VerifyOptions &opts)
    : dir_(dir), opts_(opts) {
  opts_.prove_first = {};
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec || !fs::is_directory(dir))
    throw Error(dir + ": cannot make the proof cache directory" +
                (ec ? " (" + ec.message() + ")" : ""));
  const std::string header = dir + "/cache.json";
  if (!fs::exists(header)) {
    const json h = {{"format", kFormat},
                    {"axioms_hash", hash_hex(axioms_hash)},
                    {"axioms_file", axioms_file},
                    {"prover", prover_identity()}};
    write_file_atomic(header, h.dump(2) + "\n");
  }
  const JsonField::Json h = JsonField::parse_file(header);
  const JsonField f(h, header);
  f.expect_format(kFormat);
  if (f["axioms_hash"].text() != hash_hex(axioms_hash))
    throw Error(header + ": a proof cache of other axioms (" +
                f["axioms_file"].text() +
                "); give another --proof-cache directory");
  if (f["prover"].text() != prover_identity())
    throw Error(header + ": a proof cache of another prover (" +
                f["prover"].text() + ", this is " + prover_identity() +
                "); give another --proof-cache directory");
  // In name order, so which of two equal outcomes wins does not depend on
  // the directory's order.
  std::set<std::string> files;
  for (const auto &entry : fs::directory_iterator(dir)) {
    const std::string base = entry.path().filename().string();
    if (base.rfind("results-", 0) == 0 && entry.path().extension() == ".jsonl")
      files.insert(entry.path().string());
  }
  for (const std::string &f : files)
    load(f);
}

void ProofCache::load(const std::string &path) {
  size_t line_no = 0;
  for (const std::string &line : read_complete_lines(path)) {
    ++line_no;
    const std::string where = path + ":" + std::to_string(line_no);
    const JsonField::Json j = JsonField::parse_text(line, where);
    const JsonField f(j, where);
    if (f["minimize_core"].boolean() != opts_.minimize_core)
      continue;
    add({result_from_json(f), f["timeout_s"].number()});
  }
}

void ProofCache::add(Entry e) {
  const uint64_t key = e.result.rule_hash;
  auto it = entries_.find(key);
  if (it == entries_.end())
    entries_.emplace(key, std::move(e));
  else if (better(e.result, e.timeout_s, it->second.result,
                  it->second.timeout_s))
    it->second = std::move(e);
}

std::optional<RuleResult> ProofCache::lookup(const Rule &rule) const {
  auto it = entries_.find(rule_hash(rule));
  if (it == entries_.end())
    return std::nullopt;
  const Entry &e = it->second;
  if (e.result.outcome == Outcome::Unproved && e.timeout_s < opts_.timeout_s)
    return std::nullopt; // more time may prove it
  RuleResult r = e.result;
  r.name = rule.name;
  return r;
}

void ProofCache::record(const RuleResult &result) {
  json j = result_json(result);
  j["timeout_s"] = opts_.timeout_s;
  j["minimize_core"] = opts_.minimize_core;
  std::lock_guard lock(write_);
  if (!file_) {
    const auto now = std::chrono::system_clock::now().time_since_epoch();
    file_ = std::make_unique<LineJournal>(
        dir_ + "/results-" + host_name() + "-" + std::to_string(getpid()) +
            "-" +
            std::to_string(
                std::chrono::duration_cast<std::chrono::nanoseconds>(now)
                    .count()) +
            ".jsonl",
        /*exclusive=*/true);
  }
  file_->append(j.dump());
}

} // namespace quarry::verify
