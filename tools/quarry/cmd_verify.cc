//===- cmd_verify.cc - `quarry verify`: prove rules from axioms -----------===//
//
//   quarry verify --axioms axioms/taso.axioms --rules IN.pb --out OUT.pb
//                 [--report report.json [--resume]] [--timeout 10]
//                 [--threads N] [--minimize-core] [--drop-axiom NAME]...
//
// Reads a quarry rule pack or TASO's graph_subst.pb, proves every rule with
// Z3 and writes the proved ones (with the axioms used and any precondition)
// to OUT. The report is rewritten after every rule, so an interrupted run
// resumes from it with --resume.
//
//===----------------------------------------------------------------------===//
#include "commands.h"

#include "quarry/core/file_io.h"
#include "quarry/dedupe/export.h"
#include "quarry/rules/rule_pack_io.h"
#include "quarry/verify/axiom_file.h"
#include "quarry/verify/report.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <memory>
#include <optional>

namespace quarry::cli {

namespace {

using namespace quarry::verify;

struct VerifyCliOptions {
  std::string axioms, rules, candidates, out, report;
  std::vector<std::string> drop;
  bool resume = false;
  VerifyOptions opts;
};

/// A one-line progress bar on stderr, drawn only on a terminal.
class Progress {
public:
  explicit Progress(size_t total)
      : total_(total), enabled_(isatty(STDERR_FILENO) != 0) {}
  void step(size_t done, const Totals &t) {
    if (!enabled_)
      return;
    const int width = 30;
    const int filled = total_ ? static_cast<int>(width * done / total_) : width;
    std::fprintf(stderr, "\r[%.*s%*s] %zu/%zu  proved %zu  unproved %zu ",
                 filled, "##############################", width - filled, "",
                 done, total_, t.proved + t.proved_with_precondition,
                 t.unproved + t.refuted);
    std::fflush(stderr);
  }
  ~Progress() {
    if (enabled_)
      std::fputc('\n', stderr);
  }

private:
  size_t total_;
  bool enabled_;
};

std::vector<RuleResult>
present(const std::vector<std::optional<RuleResult>> &results) {
  std::vector<RuleResult> out;
  for (const auto &r : results)
    if (r)
      out.push_back(*r);
  return out;
}

void run(const VerifyCliOptions &o) {
  AxiomFile axioms = read_axiom_file(o.axioms);
  if (!o.drop.empty())
    axioms = without_axioms(axioms, o.drop);
  if (o.rules.empty() == o.candidates.empty())
    throw Error("give --rules FILE or --candidates DIR");
  // A generator run directory is read through its manifest and shards.
  const std::string &source = o.rules.empty() ? o.candidates : o.rules;
  const RulePack pack = o.rules.empty() ? export_candidates(o.candidates)
                                        : read_rule_pack(o.rules);
  ReportInfo info{o.axioms, axiom_files_hash(axioms), source, o.opts, 0, false};
  std::vector<std::optional<RuleResult>> results(pack.rules.size());
  if (o.resume) {
    if (o.report.empty())
      throw Error("--resume needs --report (the run to resume)");
    results = resumable_results(o.report, info.axioms_hash, pack.rules);
  }
  const auto start = std::chrono::steady_clock::now();
  Progress progress(pack.rules.size());
  size_t done = 0;
  for (const auto &r : results)
    done += r.has_value();
  auto on_result = [&](const RuleResult &r) {
    results[r.index] = r;
    ++done;
    const std::vector<RuleResult> so_far = present(results);
    if (!o.report.empty())
      write_file_atomic(o.report, report_json(info, so_far));
    progress.step(done, totals(so_far));
  };
  const std::vector<RuleResult> all =
      verify_rules(axioms, pack.rules, o.opts, results, on_result);
  info.wall_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  info.complete = true;

  RulePack out;
  out.header = pack.header;
  out.header.settings.emplace_back("verified_with", base_name(o.axioms));
  // The input's description says what the rules were before ("unverified"
  // candidates, say); keep it as a setting and say what they are now.
  if (!pack.header.description.empty())
    out.header.settings.emplace_back("source_description",
                                     pack.header.description);
  out.header.description =
      "rules proved by quarry verify from " + base_name(o.axioms);
  for (size_t i = 0; i < all.size(); ++i)
    if (all[i].outcome == Outcome::Proved ||
        all[i].outcome == Outcome::ProvedWithPrecondition)
      out.rules.push_back(record_proof(pack.rules[i], all[i]));
  write_rule_pack(out, o.out);
  if (!o.report.empty())
    write_file_atomic(o.report, report_json(info, all));
  const Totals t = totals(all);
  std::printf("%zu rules: %zu proved, %zu proved-with-precondition, "
              "%zu unproved, %zu refuted (%.1f s)\nwrote %zu rules to %s\n",
              t.rules, t.proved, t.proved_with_precondition, t.unproved,
              t.refuted, info.wall_seconds, out.rules.size(), o.out.c_str());
}

} // namespace

void register_verify_command(CLI::App &app) {
  auto o = std::make_shared<VerifyCliOptions>();
  CLI::App *v =
      app.add_subcommand("verify", "Prove rules from an axiom file with Z3");
  v->add_option("--axioms", o->axioms, "Axiom file (axioms/taso.axioms)")
      ->required();
  auto *rules =
      v->add_option("--rules", o->rules,
                    "Rule pack or TASO rule collection (graph_subst.pb)");
  auto *cands = v->add_option("--candidates", o->candidates,
                              "Run directory of quarry generate");
  rules->excludes(cands);
  cands->excludes(rules);
  v->add_option("--out", o->out, "Rule pack of the proved rules")->required();
  v->add_option("--report", o->report,
                "JSON report: every rule's outcome, time and axioms");
  v->add_flag("--resume", o->resume,
              "Reuse the results in --report from an interrupted run");
  v->add_option("--timeout", o->opts.timeout_s, "Seconds per rule")
      ->check(CLI::PositiveNumber);
  v->add_option("--threads", o->opts.threads, "Worker threads")
      ->check(CLI::Range(1, 1024));
  v->add_flag("--minimize-core", o->opts.minimize_core,
              "Record a minimal set of axioms for each proof");
  v->add_option("--drop-axiom", o->drop,
                "Leave out an axiom (repeatable), to see what needs it");
  v->add_option("--seed", o->opts.seed, "Seed of counterexample inputs");
  v->callback([o] { run(*o); });
}

} // namespace quarry::cli
