//===- verify_run.cc - A whole `quarry verify` run ------------------------===//
#include "quarry/verify/verify_run.h"

#include "quarry/core/file_io.h"
#include "quarry/verify/proof_cache.h"

#include <chrono>
#include <filesystem>
#include <memory>
#include <optional>

namespace quarry::verify {

namespace {

/// How often the report is rewritten while rules finish: it grows with the
/// rules (tens of megabytes at four operators), the journal does not.
constexpr std::chrono::seconds kReportInterval{5};

} // namespace

RunSummary run_verification(const AxiomFile &axioms,
                            const std::vector<Rule> &rules,
                            const RunRequest &request) {
  RunSummary summary;
  const auto start = std::chrono::steady_clock::now();
  ReportInfo info;
  info.axioms_file = request.axioms_path;
  info.axioms_hash = axiom_files_hash(axioms);
  info.prover = prover_identity();
  info.rules_file = request.source;
  info.rules_hash = rules_hash(rules);
  info.input_rules = rules.size();
  info.shard = request.shard;
  info.options = request.opts;

  // The shard's rules; results are kept by their position in `rules`.
  std::vector<size_t> mine;
  for (size_t i = 0; i < rules.size(); ++i)
    if (request.shard.holds(i))
      mine.push_back(i);
  std::vector<std::optional<RuleResult>> results(rules.size());
  if (request.resume) {
    if (request.report_path.empty())
      throw Error("--resume needs --json (the report of the run to resume)");
    results = resumable_results(request.report_path, info.axioms_hash, rules);
    for (size_t i = 0; i < rules.size(); ++i)
      if (results[i] && !request.shard.holds(i))
        results[i].reset();
    for (const auto &r : results)
      summary.resumed += r.has_value();
  }
  std::unique_ptr<ProofCache> cache;
  if (!request.cache_dir.empty()) {
    cache = std::make_unique<ProofCache>(request.cache_dir, info.axioms_hash,
                                         request.axioms_path, request.opts);
    for (size_t i : mine)
      if (!results[i])
        if (std::optional<RuleResult> known = cache->lookup(rules[i])) {
          known->index = i;
          results[i] = std::move(*known);
          ++summary.from_cache;
        }
  }

  auto so_far = [&] {
    std::vector<RuleResult> out;
    for (size_t i : mine)
      if (results[i])
        out.push_back(*results[i]);
    return out;
  };
  using Clock = std::chrono::steady_clock;
  // The report is rewritten every few seconds, and never more than a
  // twentieth of the time: at tens of thousands of rules one rewrite takes
  // a while, and workers wait for it.
  Clock::time_point next_write{};
  auto write_report = [&] {
    if (request.report_path.empty())
      return;
    const Clock::time_point begin = Clock::now();
    write_file_atomic(request.report_path, report_json(info, so_far()));
    const Clock::time_point end = Clock::now();
    next_write =
        end + std::max<Clock::duration>(kReportInterval, 20 * (end - begin));
  };
  RunProgress progress{0, mine.size(), {}};
  // Counted as results come: recounting all of them per result would be
  // quadratic in the rules (tens of thousands at four operators).
  auto count = [&](const RuleResult &r) {
    Totals &t = progress.totals;
    ++t.rules;
    t.proved += r.outcome == Outcome::Proved;
    t.proved_with_precondition += r.outcome == Outcome::ProvedWithPrecondition;
    t.unproved += r.outcome == Outcome::Unproved;
    t.refuted += r.outcome == Outcome::Refuted;
  };
  for (size_t i : mine)
    if (results[i]) {
      ++progress.done;
      count(*results[i]);
    }
  // Everything resumed or cached is in the report before the journal
  // starts afresh; from then on each result is journaled as it comes.
  write_report();
  std::unique_ptr<LineJournal> journal;
  if (!request.report_path.empty()) {
    const std::string path = journal_path(request.report_path);
    std::filesystem::remove(path);
    journal = std::make_unique<LineJournal>(path, /*exclusive=*/true);
    journal->append(journal_header(info.axioms_hash));
  }

  std::vector<Rule> todo;
  std::vector<size_t> todo_index;
  for (size_t i : mine)
    if (!results[i]) {
      todo.push_back(rules[i]);
      todo_index.push_back(i);
    }
  auto on_result = [&](const RuleResult &local) {
    RuleResult r = local;
    r.index = todo_index[local.index];
    if (cache)
      cache->record(r);
    if (journal)
      journal->append(journal_line(r));
    summary.derived += !r.derivation.empty();
    results[r.index] = std::move(r);
    ++progress.done;
    if (Clock::now() >= next_write)
      write_report();
    count(*results[r.index]);
    if (request.progress)
      request.progress(progress);
  };
  verify_rules(axioms, todo, request.opts, {}, on_result);

  info.complete = true;
  info.wall_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  summary.report.info = info;
  summary.report.results = so_far();
  write_report();
  if (journal) {
    const std::string path = journal->path();
    journal.reset();
    std::filesystem::remove(path);
  }
  return summary;
}

} // namespace quarry::verify
