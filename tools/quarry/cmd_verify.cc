//===- cmd_verify.cc - `quarry verify`: prove rules from axioms -----------===//
//
//   quarry verify --axioms axioms/taso.axioms (--rules IN.pb | --candidates
//   RUN)
//                 --out OUT.pb [--json report.json [--resume]]
//                 [--known PROVED.pb] [--proof-cache DIR] [--timeout 10]
//                 [--threads N] [--minimize-core] [--drop-axiom NAME]...
//                 [--no-refute]
//   quarry verify ... --shard I/N --out DIR
//   quarry verify merge DIR --out OUT.pb [--json merged.json]
//
// Reads a quarry rule pack, TASO's graph_subst.pb or a generator run, proves
// every rule (by derivation from a --known pack first, then with Z3) and
// writes the proved ones, with the proof and any precondition, to OUT. The
// report is the checkpoint: --resume reuses it. With --shard, the run proves
// its part of the rules into DIR/shard-I-of-N.json (resuming it when there)
// and `merge` writes the pack of all parts. --no-refute audits the prover:
// Z3 alone decides every rule, without the float check that refutes false
// rules before Z3 sees them (and so hides what Z3 would prove of them).
//
//===----------------------------------------------------------------------===//
#include "cli_grammar.h"
#include "commands.h"

#include "quarry/core/file_io.h"
#include "quarry/core/progress_line.h"
#include "quarry/dedupe/export.h"
#include "quarry/rulepack/rule_pack_io.h"
#include "quarry/ruleset/derived_proof.h"
#include "quarry/verify/axiom_file.h"
#include "quarry/verify/verify_run.h"

#include <cstdio>
#include <filesystem>
#include <memory>

namespace quarry::cli {

namespace {

using namespace quarry::verify;

struct VerifyCliOptions {
  std::string axioms, rules, candidates, out, report, shard, cache, merge_dir,
      known;
  std::vector<std::string> drop;
  bool resume = false;
  VerifyOptions opts;
};

/// Progress on stderr (core/progress_line.h).
class Progress {
public:
  void step(const RunProgress &p) {
    const bool last = p.done == p.total;
    if (!last && !line_.due())
      return;
    const Totals &t = p.totals;
    const size_t proved = t.proved + t.proved_with_precondition;
    char buf[160];
    std::snprintf(buf, sizeof buf,
                  "verify: %zu/%zu rules, %zu proved, %zu unproved, %zu "
                  "refuted",
                  p.done, p.total, proved, t.unproved, t.refuted);
    line_.show(buf, last);
  }

private:
  ProgressLine line_;
};

/// A rule pack file, TASO's collection, or a generator run directory.
RulePack read_source(const std::string &path) {
  return std::filesystem::is_directory(path) ? export_candidates(path)
                                             : read_rule_pack(path);
}

void print_totals(const Totals &t, double seconds) {
  std::printf("%zu rules: %zu proved, %zu proved-with-precondition, "
              "%zu unproved, %zu refuted (%.1f s)\n",
              t.rules, t.proved, t.proved_with_precondition, t.unproved,
              t.refuted, seconds);
}

void run(const VerifyCliOptions &o) {
  AxiomFile axioms = read_axiom_file(o.axioms);
  if (!o.drop.empty())
    axioms = without_axioms(axioms, o.drop);
  if (o.rules.empty() == o.candidates.empty())
    throw UsageError("give --rules FILE or --candidates DIR");
  const bool sharded = !o.shard.empty();
  if (o.out.empty())
    throw UsageError(sharded ? "give --out DIR: a shard writes "
                               "DIR/shard-I-of-N.json"
                             : "give --out FILE, the pack of proved rules");
  if (!o.opts.refute &&
      (sharded || o.resume || !o.cache.empty() || !o.known.empty()))
    throw UsageError("--no-refute audits what Z3 alone proves: it takes no "
                     "--shard, --resume, --proof-cache or --known");
  if (sharded && !o.report.empty())
    throw UsageError("a shard writes DIR/shard-I-of-N.json, its report; "
                     "`quarry verify merge DIR --out FILE --json FILE` "
                     "writes the pack and the whole report");
  if (!sharded && o.resume && o.report.empty())
    throw UsageError("--resume needs --json, the report of the run to resume");
  RunRequest request;
  if (sharded)
    request.shard = as_usage_error([&] { return parse_shard(o.shard); });
  const std::string &source = o.rules.empty() ? o.candidates : o.rules;
  const RulePack pack = read_source(source);

  request.axioms_path = o.axioms;
  request.source = source;
  request.opts = o.opts;
  request.cache_dir = o.cache;
  if (sharded) {
    std::filesystem::create_directories(o.out);
    request.report_path = o.out + "/" + request.shard.file_name();
    request.resume = true;
  } else {
    request.report_path = o.report;
    request.resume = o.resume;
  }
  if (!o.known.empty()) {
    size_t usable = 0;
    request.opts.prove_first = ruleset::derivation_prover(
        read_rule_pack(o.known), base_name(o.known), {}, &usable);
    std::fprintf(stderr,
                 "%s: %zu proved rules without preconditions derive "
                 "candidates before Z3\n",
                 o.known.c_str(), usable);
  }
  Progress progress;
  request.progress = [&](const RunProgress &p) { progress.step(p); };
  const RunSummary s = run_verification(axioms, pack.rules, request);
  const Report &r = s.report;
  print_totals(totals(r.results), r.info.wall_seconds);
  std::printf("reused %zu from the report, %zu from the cache; derived %zu\n",
              s.resumed, s.from_cache, s.derived);
  if (sharded) {
    std::printf("wrote shard %s to %s\n", request.shard.str().c_str(),
                request.report_path.c_str());
    return;
  }
  RulePack out = proved_pack(pack, r.results, o.axioms);
  if (!o.opts.refute)
    out.header.settings.emplace_back(
        "float_check", "skipped (--no-refute): the rules Z3 alone proved");
  write_rule_pack(out, o.out);
  std::printf("wrote %zu rules to %s\n", out.rules.size(), o.out.c_str());
}

void merge(const VerifyCliOptions &o) {
  const Report r = merge_shard_reports(o.merge_dir);
  const RulePack pack = read_source(r.info.rules_file);
  check_report_matches(r, pack.rules, o.merge_dir);
  const RulePack out = proved_pack(pack, r.results, r.info.axioms_file);
  if (!o.report.empty())
    write_file_atomic(o.report, report_json(r.info, r.results));
  write_rule_pack(out, o.out);
  print_totals(totals(r.results), r.info.wall_seconds);
  std::printf("wrote %zu rules to %s\n", out.rules.size(), o.out.c_str());
}

} // namespace

void register_verify_command(CLI::App &app) {
  auto o = std::make_shared<VerifyCliOptions>();
  CLI::App *v =
      app.add_subcommand("verify", "Prove rules from an axiom file with Z3");
  v->add_option("--axioms", o->axioms, "Axiom file (axioms/taso.axioms)");
  auto *rules =
      v->add_option("--rules", o->rules,
                    "Rule pack or TASO rule collection (graph_subst.pb)");
  auto *cands = v->add_option("--candidates", o->candidates,
                              "Run directory of quarry generate");
  rules->excludes(cands);
  cands->excludes(rules);
  v->add_option("--out", o->out,
                "Rule pack of the proved rules; with --shard, the directory "
                "the shard writes shard-I-of-N.json (its report) into");
  v->add_option("--json", o->report,
                "JSON report: every rule's outcome, time and axioms");
  add_old_spelling(*v, "--report", o->report, "--json");
  v->add_flag("--resume", o->resume,
              "Reuse the results in --json (or a shard's file in --out) "
              "from an interrupted run");
  v->add_option("--shard", o->shard,
                "Prove part I of N of the rules (those at positions I mod N)");
  add_old_spelling(*v, "--shard-dir", o->out, "--out");
  v->add_option("--known", o->known,
                "A pack of proved rules: a rule they derive needs no Z3");
  v->add_option("--proof-cache", o->cache,
                "Proof cache directory: outcomes by rule hash, across runs");
  add_old_spelling(*v, "--cache", o->cache, "--proof-cache");
  v->add_option("--timeout", o->opts.timeout_s,
                "Seconds per rule, given to Z3 as its resource count (the "
                "same outcome on any machine)")
      ->check(CLI::PositiveNumber);
  v->add_option("--threads", o->opts.threads, "Worker threads")
      ->check(CLI::Range(1, 1024));
  v->add_flag("--minimize-core", o->opts.minimize_core,
              "Record a minimal set of axioms for each proof");
  v->add_option("--drop-axiom", o->drop,
                "Leave out an axiom (repeatable), to see what needs it");
  v->add_option("--seed", o->opts.seed, "Seed of counterexample inputs");
  v->add_flag("--no-refute{false}", o->opts.refute,
              "Skip the float check: what Z3 alone proves (an audit of the "
              "prover)");
  CLI::App *m = v->add_subcommand(
      "merge", "Write the pack of the shards' results in DIR");
  m->add_option("DIR", o->merge_dir, "Directory of shard-I-of-N.json")
      ->required();
  m->add_option("--out", o->out, "Rule pack of the proved rules")->required();
  m->add_option("--json", o->report, "The merged JSON report");
  add_old_spelling(*m, "--report", o->report, "--json");
  m->callback([o] { merge(*o); });
  v->callback([o, m] {
    if (m->parsed())
      return;
    if (o->axioms.empty())
      throw UsageError("give --axioms FILE");
    run(*o);
  });
}

} // namespace quarry::cli
