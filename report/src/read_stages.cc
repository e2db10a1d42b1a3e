//===- read_stages.cc - Reading each stage's result file ------------------===//
//
// Each stage's file is read by the reader of the module that writes it
// (read_manifest, verify::read_report, validate_axioms::read_report,
// opt::read_report_file), which names the file and the field of anything
// malformed; here the numbers a report shows are taken from what they
// return.
//
//===----------------------------------------------------------------------===//
#include "read_stages.h"

#include "quarry/core/error.h"
#include "quarry/dedupe/manifest.h"
#include "quarry/validate_axioms/report.h"
#include "quarry/verify/report.h"

#include <algorithm>

namespace quarry::report {

namespace {

StageState done_if(bool complete) {
  return complete ? StageState::Done : StageState::Running;
}

AnswerCounts
answer_counts(const std::vector<validate_axioms::EntailmentResult> &results) {
  AnswerCounts c;
  for (const validate_axioms::EntailmentResult &e : results)
    switch (e.answer) {
    case validate_axioms::Answer::Entailed:
      ++c.entailed;
      break;
    case validate_axioms::Answer::NotEntailed:
      ++c.not_entailed;
      break;
    case validate_axioms::Answer::Unknown:
      ++c.unknown;
      break;
    }
  return c;
}

} // namespace

GenerateSummary read_generate(const std::string &path) {
  const Manifest m = read_manifest(path);
  // The totals are the generator's stages, by name.
  const auto total = [&](const std::string &stage) {
    for (const auto &[name, count] : m.totals)
      if (name == stage)
        return static_cast<int64_t>(count);
    throw Error(path + ": totals." + stage + ": missing");
  };
  GenerateSummary g;
  g.state = StageState::Done; // the manifest is written when a run ends
  g.graphs = total("graphs");
  g.reorderings = total("reorderings");
  g.classes = total("classes");
  g.collisions = total("collisions");
  g.candidates = total("candidates");
  g.after_renaming = total("after_renaming");
  g.after_subgraph_pruning = total("after_subgraph_pruning");
  g.ranks = m.ranks;
  g.max_ops = m.max_ops;
  g.seconds = m.seconds;
  g.peak_rss_bytes_per_rank = static_cast<int64_t>(m.peak_rss_bytes);
  return g;
}

VerifySummary read_verify(const std::string &path) {
  const verify::Report r = verify::read_report(path);
  const verify::Totals t = verify::totals(r.results);
  VerifySummary v;
  v.state = done_if(r.info.complete);
  v.rules = static_cast<int64_t>(t.rules);
  v.proved = static_cast<int64_t>(t.proved);
  v.proved_with_precondition = static_cast<int64_t>(t.proved_with_precondition);
  v.unproved = static_cast<int64_t>(t.unproved);
  v.refuted = static_cast<int64_t>(t.refuted);
  v.median_seconds = t.median_seconds;
  v.max_seconds = t.max_seconds;
  v.wall_seconds = r.info.wall_seconds;
  v.timeout_s = r.info.options.timeout_s;
  v.threads = r.info.options.threads;
  for (const verify::RuleResult &res : r.results)
    v.proof_seconds.push_back(res.seconds);
  return v;
}

ValidateSummary read_validate(const std::string &path) {
  const validate_axioms::ValidationReport r =
      validate_axioms::read_report(path);
  ValidateSummary v;
  v.state = done_if(r.complete);
  v.checks = r.checks;
  v.shards = r.shards;
  v.problems = validate_axioms::has_problems(r);
  v.wall_seconds = r.wall_seconds;
  if (r.lemmas)
    v.lemmas = answer_counts(*r.lemmas);
  if (r.redundancy)
    v.redundancy = answer_counts(*r.redundancy);
  if (r.consistency)
    v.consistency = std::string(answer_name(r.consistency->answer));
  if (r.summary) {
    const validate_axioms::SweepCounts &total = r.summary->total;
    v.has_sweep = true;
    v.cases = static_cast<int64_t>(total.cases());
    v.checked = static_cast<int64_t>(total.checked);
    v.skipped = static_cast<int64_t>(total.skipped);
    v.failed = static_cast<int64_t>(total.failed);
    v.filtered = static_cast<int64_t>(total.filtered);
    v.sweep_seconds = total.seconds;
    for (const validate_axioms::AxiomSweep &a : r.summary->axioms)
      v.axioms.push_back({a.name, static_cast<int64_t>(a.counts.checked),
                          static_cast<int64_t>(a.counts.skipped),
                          static_cast<int64_t>(a.counts.failed),
                          a.counts.seconds});
  }
  return v;
}

OptimizeSummary read_optimize(const std::string &path) {
  OptimizeSummary o;
  static_cast<opt::ReportFile &>(o) = opt::read_report_file(path);
  o.state = StageState::Done; // written once the optimized graph is
  for (const opt::ReportFile::Step &step : o.applied) {
    auto it = std::find_if(o.applied_counts.begin(), o.applied_counts.end(),
                           [&](const auto &p) { return p.first == step.name; });
    if (it == o.applied_counts.end())
      o.applied_counts.emplace_back(step.name, 1);
    else
      ++it->second;
  }
  o.steps = static_cast<int64_t>(o.applied.size());
  return o;
}

} // namespace quarry::report
