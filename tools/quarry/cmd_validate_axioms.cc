//===- cmd_validate_axioms.cc - `quarry validate-axioms` ------------------===//
//
//   quarry validate-axioms --axioms FILE --out DIR [--sizes 1,2,3,4]
//       [--checks lemmas,redundancy,consistency,sweep] [--shard I/N]
//       [--threads N] [--timeout S] [--chunk-size K] [--checkpoint-seconds S]
//   quarry validate-axioms merge DIR
//
// Checks an axiom file (validate_axioms/validation.h): lemmas follow from the
// axioms, which axioms the others entail, that the axioms do not make all
// tensors equal, and the symbolic sweep over every small case. Each shard
// writes DIR/shard-I-of-N.json (rerunning an interrupted shard resumes it);
// `merge` combines the shards. Exits 1 when a check finds a problem.
//
//===----------------------------------------------------------------------===//
#include "cli_grammar.h"
#include "commands.h"

#include "quarry/core/progress_line.h"
#include "quarry/core/shard_spec.h"
#include "quarry/core/split_list.h"
#include "quarry/validate_axioms/validation.h"
#include "quarry/verify/shape_conditions.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>
#include <sstream>

namespace quarry::cli {

namespace {

using namespace quarry::validate_axioms;

/// Counterexamples printed per failing axiom.
constexpr int kShownPerAxiom = 3;

struct ValidateCliOptions {
  ValidateOptions opts;
  std::string sizes = "1,2,3,4", checks = "lemmas,redundancy,consistency,sweep",
              shard = "0/1", merge_dir;
};

int64_t parse_int(const std::string &s, const std::string &flag) {
  size_t used = 0;
  int64_t v = -1;
  try {
    v = std::stoll(s, &used);
  } catch (const std::exception &) {
    used = 0;
  }
  if (used == 0 || used != s.size())
    throw UsageError(flag + " expects integers, got '" + s + "'");
  return v;
}

void parse_flags(ValidateCliOptions &o) {
  o.opts.sweep.sizes.clear();
  for (const std::string &s : split_list(o.sizes)) {
    const int64_t v = parse_int(s, "--sizes");
    if (v < 1)
      throw UsageError("--sizes expects positive integers, got '" + s + "'");
    o.opts.sweep.sizes.push_back(v);
  }
  if (o.opts.sweep.sizes.empty())
    throw UsageError("--sizes expects a list such as 1,2,3,4");
  o.opts.checks = split_list(o.checks);
  for (const std::string &c : o.opts.checks)
    if (std::find(all_checks().begin(), all_checks().end(), c) ==
        all_checks().end())
      throw UsageError("--checks: unknown check '" + c +
                       "' (lemmas, redundancy, consistency, sweep)");
  const ShardSpec shard = as_usage_error([&] { return parse_shard(o.shard); });
  o.opts.sweep.shard = shard.index;
  o.opts.sweep.shards = shard.count;
}

const char *answer_word(const EntailmentResult &e, bool consistency) {
  if (consistency)
    return e.answer == Answer::Entailed      ? "INCONSISTENT"
           : e.answer == Answer::NotEntailed ? "consistent"
                                             : "unknown";
  return e.answer == Answer::Entailed      ? "entailed"
         : e.answer == Answer::NotEntailed ? "not entailed"
                                           : "unknown";
}

std::string joined(const std::vector<std::string> &v) {
  std::string s;
  for (const std::string &x : v)
    s += (s.empty() ? "" : ", ") + x;
  return s;
}

void print_entailments(const char *what,
                       const std::vector<EntailmentResult> &results,
                       bool redundancy) {
  size_t yes = 0, no = 0, unknown = 0;
  double seconds = 0;
  for (const EntailmentResult &e : results) {
    yes += e.answer == Answer::Entailed;
    no += e.answer == Answer::NotEntailed;
    unknown += e.answer == Answer::Unknown;
    seconds += e.seconds;
  }
  std::printf("%s: %zu %s, %zu %s, %zu unknown (%.1f s of solver time)\n", what,
              yes, redundancy ? "redundant" : "entailed", no,
              redundancy ? "independent" : "not entailed", unknown, seconds);
  for (const EntailmentResult &e : results) {
    if (e.answer == Answer::Entailed && redundancy)
      std::printf("  REDUNDANT %s: entailed by %s\n", e.name.c_str(),
                  joined(e.by).c_str());
    else if (e.answer == Answer::Entailed)
      std::printf("  %s: entailed by %s\n", e.name.c_str(),
                  joined(e.by).c_str());
    else if (e.answer == Answer::NotEntailed)
      std::printf("  %s %s: %s\n", redundancy ? "independent" : "NOT ENTAILED",
                  e.name.c_str(), e.detail.c_str());
  }
}

void print_report(const ValidationRun &run) {
  const ValidationReport &r = run.report;
  if (r.lemmas)
    print_entailments("lemmas", *r.lemmas, false);
  if (r.consistency) {
    const EntailmentResult &c = *r.consistency;
    std::printf("consistency: %s (%.1f s)", answer_word(c, true), c.seconds);
    if (c.answer == Answer::Entailed)
      std::printf(": %s, by %s",
                  c.detail.starts_with(kDimsInconsistency)
                      ? c.detail.c_str()
                      : "two fresh tensors are equal",
                  joined(c.by).c_str());
    else if (!c.detail.empty())
      std::printf(": %s", c.detail.c_str());
    std::printf("\n");
  }
  if (r.redundancy)
    print_entailments("redundancy", *r.redundancy, true);
  if (std::count(r.checks.begin(), r.checks.end(), "sweep")) {
    SweepCounts t;
    for (const auto &[id, c] : r.chunks)
      t += c.counts;
    std::printf("sweep: %llu cases: %llu checked, %llu skipped, %llu failed "
                "(%.1f s of CPU time, %llu chunks",
                (unsigned long long)t.cases(), (unsigned long long)t.checked,
                (unsigned long long)t.skipped, (unsigned long long)t.failed,
                t.seconds, (unsigned long long)r.chunks.size());
    if (run.resumed_chunks)
      std::printf(", %llu resumed", (unsigned long long)run.resumed_chunks);
    std::printf(")\n");
    // What the sweep took as given, as the prover does.
    const verify::AxiomFile file = verify::read_axiom_file(r.axioms_file);
    for (const verify::Axiom &a : file.axioms)
      if (!a.shape_conditions.empty()) {
        std::vector<std::string> c;
        for (const verify::DimCondition &d : a.shape_conditions)
          c.push_back(verify::print_condition(file, d));
        std::printf("  conditions of %s (its shapes): %s\n", a.name.c_str(),
                    joined(c).c_str());
      }
    // A few counterexamples per axiom; the file has up to two per chunk.
    std::map<std::string, int> shown;
    size_t more = 0;
    for (const auto &[id, c] : r.chunks)
      for (const Failure &f : c.failures) {
        if (shown[f.axiom]++ < kShownPerAxiom)
          std::printf("  FAILED %s: %s\n", f.axiom.c_str(), f.detail.c_str());
        else
          ++more;
      }
    if (more)
      std::printf("  (%zu more counterexamples in %s)\n", more,
                  run.path.c_str());
  }
  std::printf("wrote %s\n", run.path.c_str());
  std::fflush(stdout);
  if (has_problems(r))
    throw Error(r.axioms_file + ": validation found problems (see " + run.path +
                ")");
}

void run(ValidateCliOptions &o) {
  parse_flags(o);
  ValidationRun r;
  {
    ProgressLine line;
    o.opts.progress = [&line](uint64_t done, uint64_t planned,
                              const SweepCounts &t) {
      const bool last = done == planned;
      if (!last && !line.due())
        return;
      char buf[160];
      std::snprintf(buf, sizeof buf,
                    "sweep: chunk %llu/%llu, %llu cases, "
                    "%llu failed",
                    (unsigned long long)done, (unsigned long long)planned,
                    (unsigned long long)t.cases(),
                    (unsigned long long)t.failed);
      line.show(buf, last);
    };
    r = run_validation(o.opts);
  }
  print_report(r);
}

} // namespace

void register_validate_axioms_command(CLI::App &app) {
  auto o = std::make_shared<ValidateCliOptions>();
  CLI::App *v = app.add_subcommand(
      "validate-axioms",
      "Check an axiom file: lemmas, redundancy, consistency, symbolic sweep");
  v->add_option("--axioms", o->opts.axioms_path, "Axiom file");
  v->add_option("--out", o->opts.out_dir,
                "Directory of the result files (shard-I-of-N.json)");
  v->add_option("--sizes", o->sizes,
                "Dimension sizes of the sweep (default 1,2,3,4)");
  v->add_option("--checks", o->checks,
                "Checks to run: lemmas,redundancy,consistency,sweep");
  v->add_option("--shard", o->shard,
                "Run shard I of N of the sweep (default 0/1)");
  v->add_option("--threads", o->opts.sweep.threads, "Worker threads")
      ->check(CLI::Range(1, 1024));
  v->add_option("--timeout", o->opts.entailment.timeout_s,
                "Seconds of Z3 per entailment (default 2)")
      ->check(CLI::PositiveNumber);
  v->add_option("--chunk-size", o->opts.sweep.chunk_size,
                "Sweep cases per chunk, the unit of sharding and resuming")
      ->check(CLI::Range(1, 1 << 30));
  v->add_option("--checkpoint-seconds", o->opts.checkpoint_seconds,
                "Seconds between saves of the finished chunks (default 1; 0 "
                "saves after every chunk)")
      ->check(CLI::NonNegativeNumber);
  CLI::App *merge =
      v->add_subcommand("merge", "Combine the shards' result files in DIR");
  merge->add_option("DIR", o->merge_dir, "Directory of the shards")->required();
  merge->callback([o] { print_report(merge_shards(o->merge_dir)); });
  v->callback([o, merge] {
    if (merge->parsed())
      return;
    if (o->opts.axioms_path.empty() || o->opts.out_dir.empty())
      throw UsageError("give --axioms FILE and --out DIR");
    o->opts.entailment.threads = o->opts.sweep.threads;
    run(*o);
  });
}

} // namespace quarry::cli
