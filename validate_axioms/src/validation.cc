//===- validation.cc - A validation run and the merge of shards -----------===//
#include "quarry/validate_axioms/validation.h"

#include "quarry/core/file_io.h"
#include "quarry/core/shard_spec.h"
#include "quarry/verify/report.h"

#include <algorithm>
#include <chrono>
#include <filesystem>

namespace quarry::validate_axioms {

namespace {

using Clock = std::chrono::steady_clock;

bool has(const std::vector<std::string> &checks, const std::string &c) {
  return std::count(checks.begin(), checks.end(), c) != 0;
}

/// Raised whenever a change to the checks here can change an outcome.
/// Revision 2: every Z3 check bounded by its resource count, not the clock.
constexpr int kCheckerRevision = 2;

/// Whether an earlier file of this shard can be resumed from.
bool same_settings(const ValidationReport &a, const ValidationReport &b) {
  return a.axioms_hash == b.axioms_hash && a.checker == b.checker &&
         a.sizes == b.sizes && a.shard == b.shard && a.shards == b.shards &&
         a.chunk_size == b.chunk_size;
}

} // namespace

std::string checker_identity() {
  return verify::prover_identity() + ", quarry validate-axioms r" +
         std::to_string(kCheckerRevision);
}

const std::vector<std::string> &all_checks() {
  static const std::vector<std::string> checks = {"lemmas", "redundancy",
                                                  "consistency", "sweep"};
  return checks;
}

ValidationRun run_validation(const ValidateOptions &opts) {
  for (const std::string &c : opts.checks)
    if (!has(all_checks(), c))
      throw Error("unknown check '" + c +
                  "' (lemmas, redundancy, consistency, sweep)");
  const verify::AxiomFile file = verify::read_axiom_file(opts.axioms_path);
  const SweepOptions &so = opts.sweep;
  const std::vector<Chunk> plan =
      has(opts.checks, "sweep") ? plan_chunks(file, so) : std::vector<Chunk>{};
  std::filesystem::create_directories(opts.out_dir);

  ValidationRun run;
  ValidationReport &r = run.report;
  r.axioms_file = opts.axioms_path;
  r.axioms_hash = verify::axiom_files_hash(file);
  r.checker = checker_identity();
  r.sizes = so.sizes;
  r.shard = so.shard;
  r.shards = so.shards;
  r.chunk_size = so.chunk_size;
  r.checks = opts.checks;
  r.planned_chunks = plan.size();
  run.path = shard_file(opts.out_dir, so.shard, so.shards);

  // Resume from an earlier file of the same shard and settings.
  if (std::filesystem::exists(run.path)) {
    const ValidationReport old = read_report(run.path);
    if (same_settings(old, r)) {
      if (has(opts.checks, "lemmas"))
        r.lemmas = old.lemmas;
      if (has(opts.checks, "redundancy"))
        r.redundancy = old.redundancy;
      if (has(opts.checks, "consistency"))
        r.consistency = old.consistency;
      if (has(opts.checks, "sweep"))
        r.chunks = old.chunks;
      run.resumed_chunks = r.chunks.size();
    }
  }

  const auto start = Clock::now();
  auto save = [&] {
    r.wall_seconds =
        std::chrono::duration<double>(Clock::now() - start).count();
    write_file_atomic(run.path, report_json(file, r));
  };
  if (so.shard == 0) {
    if (has(opts.checks, "lemmas") && !r.lemmas)
      r.lemmas = check_lemmas(file, opts.entailment);
    if (has(opts.checks, "consistency") && !r.consistency)
      r.consistency = check_consistency(file, opts.entailment);
    if (has(opts.checks, "redundancy") && !r.redundancy)
      r.redundancy = check_redundancy(file, opts.entailment);
  }
  save();
  if (has(opts.checks, "sweep")) {
    auto last_save = Clock::now();
    SweepCounts so_far;
    for (const auto &[id, c] : r.chunks)
      so_far += c.counts;
    sweep(file, so, r.chunks, [&](const ChunkResult &c) {
      r.chunks[c.id] = c;
      so_far += c.counts;
      if (opts.progress)
        opts.progress(r.chunks.size(), plan.size(), so_far);
      if (Clock::now() - last_save >=
          std::chrono::duration<double>(opts.checkpoint_seconds)) {
        save();
        last_save = Clock::now();
      }
    });
  }
  r.complete = true;
  save();
  return run;
}

ValidationRun merge_shards(const std::string &dir) {
  const std::vector<std::string> files = shard_files(dir);
  ValidationRun run;
  ValidationReport &m = run.report;
  for (size_t i = 0; i < files.size(); ++i) {
    const ValidationReport r = read_report(files[i]);
    if (!r.complete)
      throw Error(files[i] + ": the shard has not finished (rerun it)");
    if (r.checker != checker_identity())
      throw Error(files[i] + ": made by checker '" + r.checker + "', not '" +
                  checker_identity() + "' (rerun the shard)");
    if (i == 0) {
      m = r;
      m.chunks.clear();
      m.planned_chunks = 0;
      m.wall_seconds = 0;
    } else if (r.axioms_hash != m.axioms_hash || r.sizes != m.sizes ||
               r.chunk_size != m.chunk_size || r.checks != m.checks) {
      throw Error(files[i] + ": made with other axioms or settings than " +
                  files[0]);
    }
    for (const auto &[id, c] : r.chunks)
      if (!m.chunks.emplace(id, c).second)
        throw Error(files[i] + ": chunk " + std::to_string(id) +
                    " is also in another shard");
    m.planned_chunks += r.planned_chunks;
    m.wall_seconds = std::max(m.wall_seconds, r.wall_seconds);
  }
  m.shard = -1;
  m.complete = true;
  const verify::AxiomFile file = verify::read_axiom_file(m.axioms_file);
  if (verify::axiom_files_hash(file) != m.axioms_hash)
    throw Error(m.axioms_file + ": changed since the shards ran");
  run.path = dir + "/merged.json";
  write_file_atomic(run.path, report_json(file, m));
  return run;
}

} // namespace quarry::validate_axioms
