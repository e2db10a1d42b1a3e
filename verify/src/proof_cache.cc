//===- proof_cache.cc - Proof outcomes kept across runs -------------------===//
#include "quarry/verify/proof_cache.h"

#include "quarry/core/error.h"
#include "quarry/core/file_io.h"
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
  try {
    const json h = json::parse(read_file_bytes(header));
    if (!h.is_object() || h.value("format", "") != kFormat)
      throw Error(std::string("not a ") + kFormat + " file");
    if (h.at("axioms_hash").get<std::string>() != hash_hex(axioms_hash))
      throw Error("a proof cache of other axioms (" +
                  h.at("axioms_file").get<std::string>() +
                  "); give another --proof-cache directory");
    if (h.at("prover").get<std::string>() != prover_identity())
      throw Error("a proof cache of another prover (" +
                  h.at("prover").get<std::string>() + ", this is " +
                  prover_identity() +
                  "); give another --proof-cache directory");
  } catch (const json::exception &e) {
    throw Error(header + ": malformed (" + std::string(e.what()) + ")");
  } catch (const Error &e) {
    throw Error(header + ": " + e.what());
  }
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
    try {
      const json j = json::parse(line);
      if (j.at("minimize_core").get<bool>() != opts_.minimize_core)
        continue;
      add({result_from_json(j), j.at("timeout_s").get<double>()});
    } catch (const json::exception &e) {
      throw Error(path + ":" + std::to_string(line_no) + ": malformed (" +
                  e.what() + ")");
    } catch (const Error &e) {
      throw Error(path + ":" + std::to_string(line_no) + ": " + e.what());
    }
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
