//===- optimize_bench.cc - Networks before and after quarry optimize -----===//
//
// Prints JSON: per network at batch 1, per backend at hand (cpu; cuda when
// a GPU is present), the latency of the original and of the optimized
// graph as selection measured them (each of the --measure-top cheapest
// graphs timed in turn with the original, --runs rounds after --warmup;
// the original is kept when nothing beats it, or when the winner does not
// win again prepared afresh), the speed-up predicted by
// the cost model next to the measured one, search time and memory, and the
// steps applied, with the rule pack named by --rules (quarry's minimized
// pack by default; TASO's collection needs --allow-unverified). --size
// picks the input size (0: each network's own) and --budget the search
// budget. --forward-only applies each rule from source to target only, as
// quarry optimize --forward-only does.
//
//   build/bin/optimize_bench [--rules FILE] [--allow-unverified]
//       [--forward-only]
//       [--budget N] [--alpha A] [--size S] [--runs N] [--warmup N]
//       [--cost-runs N] [--measure-top K]
//       [--models a,b,...] [--backends cpu,cuda] [--cost-cache FILE]
//       [--check]
//
// --backends names the backends to run (default: cpu, and cuda when a GPU
// is present); naming cuda without a GPU is an error.
//
// --check also compares the outputs of both graphs on the reference backend
// (slow at full size: the reference is plain loops).
//
//===----------------------------------------------------------------------===//
#include "bench_cli.h"
#include "bench_networks.h"
#include "provenance.h"

#include "quarry/core/split_list.h"
#include "quarry/models/zoo.h"
#include "quarry/optimizer/report.h"
#include "quarry/optimizer/rule_policy.h"
#include "quarry/rulepack/rule_pack_io.h"
#include "quarry/runtime/backends.h"
#include "quarry/runtime/measure.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

namespace {

using namespace quarry;

struct Args {
  std::string rules = QUARRY_SOURCE_DIR "/rules/quarry-k3.min.pb";
  std::string cache = "optimize_bench_costs.tsv";
  bool allow_unverified = false;
  bool forward_only = false;
  bool check = false; ///< also compare outputs on the reference backend
  opt::SearchOptions search;
  int64_t size = 0;
  runtime::MeasureOptions measure{3, 10, 1};
  /// Per-operator measurements for the cost model (fewer runs: there are
  /// many configurations, each measured once).
  runtime::MeasureOptions cost_measure{1, 3, 1};
  std::vector<std::string> models;
  std::vector<std::string> backends; ///< empty: cpu, and cuda if present
  int measure_top = 3;
};

Args parse(int argc, char **argv) {
  Args a;
  a.search.budget = 20;
  std::string models, backends;
  CLI::App app{"Networks before and after quarry optimize, as JSON",
               "optimize_bench"};
  bench::flag_defaults(app);
  app.add_option("--rules", a.rules, "Rule pack");
  app.add_flag("--allow-unverified", a.allow_unverified,
               "Accept a pack whose rules are not all proved (TASO's)");
  app.add_flag("--forward-only", a.forward_only,
               "Apply each rule from source to target only");
  app.add_option("--budget", a.search.budget,
                 "Graphs the search expands at most");
  app.add_option("--alpha", a.search.alpha,
                 "Keep exploring graphs up to this factor above the best");
  app.add_option("--size", a.size, "Input size (0: each network's own)");
  app.add_option("--runs", a.measure.runs,
                 "Rounds of selection's timing in turn");
  app.add_option("--warmup", a.measure.warmup,
                 "Untimed runs before each graph's timing");
  app.add_option("--cost-runs", a.cost_measure.runs,
                 "Timed runs per operator for the cost model");
  app.add_option("--measure-top", a.measure_top,
                 "Cheapest graphs timed with the original in selection");
  app.add_option("--models", models,
                 "Networks, comma-separated (default: every benchmark "
                 "network)");
  app.add_option("--backends", backends,
                 "Backends, comma-separated (default: cpu, and cuda when "
                 "a GPU is present)");
  app.add_option("--cost-cache", a.cache, "Operator cost file");
  app.add_flag("--check", a.check,
               "Also compare both graphs' outputs on the reference backend");
  bench::parse_or_exit(app, argc, argv);
  a.models = bench::network_names(app, models);
  if (app.count("--backends"))
    a.backends = split_list(backends);
  return a;
}

nlohmann::json run_one(const Args &a, const std::string &name,
                       const std::vector<rewrite::Transformation> &ts,
                       runtime::Backend &backend, runtime::CostCache &cache) {
  ModelOptions mo;
  mo.batch = 1;
  mo.size = a.size;
  const Model m = build_model(name, mo);
  runtime::MeasureOptions cost_measure = a.cost_measure;
  cost_measure.cold_weights = runtime::weights_outgrow_cache(backend, m.graph);
  opt::CostModel cost(backend, cache, cost_measure);
  opt::SelectOptions select;
  select.candidates = a.measure_top;
  select.rounds = a.measure.runs;
  select.timer = opt::backend_timer(backend, a.measure.warmup, 1);
  const opt::OptimizeResult r = opt::optimize(m, ts, cost, a.search, select, 1);
  opt::ReportInput in{name,
                      a.rules,
                      std::string(backend.name()),
                      a.search,
                      &m,
                      &r,
                      &ts,
                      cost.measured(),
                      std::nullopt};
  nlohmann::json j;
  j["model"] = name;
  j["backend"] = backend.name();
  if (!r.timed.empty()) {
    // Original and chosen timed in turn during selection.
    const opt::TimedGraph &o = r.timed[0], &c = r.timed[r.chosen];
    // The original's median in the chosen graph's pair of runs.
    j["latency_ms_original"] = c.measured_ms * c.measured_speedup;
    j["latency_ms_optimized"] = c.measured_ms;
    // Against the original of its pair. The winner's, timed again afresh
    // when it won: the first timing is the best of several noisy ones,
    // which flatters it. A win that did not hold ships the original: 1.
    j["speedup"] = r.confirmed_speedup > 0 && !r.kept_original
                       ? r.confirmed_speedup
                       : c.measured_speedup;
    j["selection_speedup"] = c.measured_speedup;
    j["predicted_speedup"] = o.predicted_ms / c.predicted_ms;
    j["kept_original"] = r.kept_original;
    // The winner timed again, both prepared afresh (0: none won); a win
    // that did not hold leaves the original, `unconfirmed` naming it.
    j["confirmed_speedup"] = r.confirmed_speedup;
    j["unconfirmed"] = r.unconfirmed;
    nlohmann::json timed = nlohmann::json::array();
    for (const opt::TimedGraph &t : r.timed)
      timed.push_back({{"predicted_ms", t.predicted_ms},
                       {"measured_ms", t.measured_ms},
                       {"measured_speedup", t.measured_speedup},
                       {"steps", t.steps.size()}});
    j["timed"] = timed;
    // The calibration the predictions were made with.
    j["calibration"] = {{"measured_ms", r.calibrated_on_ms},
                        {"launch_ms", r.launch_ms},
                        {"scale", r.calibration_scale}};
    // What the search's best would have given, shipped unmeasured.
    j["search_best_predicted_speedup"] =
        r.search.initial_cost / r.search.best_cost;
  }
  j["search_peak_bytes"] = r.search.peak_bytes;
  j["cost_fallback_configs"] = cost.fallbacks();
  // Operators measured during this network's optimize (search included):
  // a search that measures is not timed on its own.
  j["cost_measured_configs"] = cost.measured();
  j["cost_unsteady_configs"] = cache.unsteady();
  j["cost_cold_weights"] = cost_measure.cold_weights;
  j["cost_ms_original"] = r.search.initial_cost;
  j["cost_ms_optimized"] = r.final_cost;
  j["search_seconds"] = r.search.seconds;
  j["expanded"] = r.search.expanded;
  j["operators_original"] = m.graph.num_operators();
  j["operators_optimized"] = r.model.graph.num_operators();
  j["applied"] = opt::applied_names(in);
  if (a.check)
    j["max_relative_error"] = opt::output_error(m, r.model, 1);
  return j;
}

/// One line per network for the progress log: the measured latencies and
/// speed-up, or the error.
std::string summary(const nlohmann::json &j) {
  if (j.contains("error"))
    return j["error"].get<std::string>();
  char line[200] = "no graph timed";
  if (j.contains("speedup"))
    std::snprintf(line, sizeof line,
                  "%.4f ms -> %.4f ms, measured x%.3f, predicted x%.3f, "
                  "search %.1f s",
                  j["latency_ms_original"].get<double>(),
                  j["latency_ms_optimized"].get<double>(),
                  j["speedup"].get<double>(),
                  j["predicted_speedup"].get<double>(),
                  j["search_seconds"].get<double>());
  return line;
}

} // namespace

int main(int argc, char **argv) {
  try {
    const Args a = parse(argc, argv);
    const RulePack pack = read_rule_pack(a.rules);
    opt::require_proved(pack, a.rules, a.allow_unverified);
    const auto ts =
        rewrite::make_transformations(pack, {.reversed = !a.forward_only});
    std::vector<std::string> backends = a.backends;
    if (backends.empty()) {
      backends.push_back("cpu");
      if (runtime::cuda_backend_built()) {
        try {
          runtime::make_backend("cuda");
          backends.push_back("cuda");
        } catch (const Error &) {
          // No GPU on this machine.
        }
      }
    }
    runtime::CostCache cache(a.cache);
    nlohmann::json out = bench::provenance(argc, argv);
    out["rules_hash"] = bench::file_hash(a.rules);
    // The pack as the source tree names it, not this machine's path.
    const std::string source = QUARRY_SOURCE_DIR "/";
    out["rules"] =
        a.rules.rfind(source, 0) == 0 ? a.rules.substr(source.size()) : a.rules;
    out["rule_count"] = pack.rules.size();
    out["rules_applied"] = a.forward_only ? "forward" : "both ways";
    out["transformations"] = ts.size();
    out["budget"] = a.search.budget;
    out["alpha"] = a.search.alpha;
    out["size"] = a.size;
    out["runs"] = a.measure.runs;
    for (const std::string &b : backends) {
      auto backend = runtime::make_backend(b);
      out["device"][b] = backend->device_name();
      for (const std::string &name : a.models) {
        // A network this backend cannot run is reported, not fatal: the
        // others still get measured.
        nlohmann::json j;
        try {
          j = run_one(a, name, ts, *backend, cache);
        } catch (const Error &e) {
          j = {{"model", name}, {"backend", b}, {"error", e.what()}};
        }
        out["networks"].push_back(j);
        std::fprintf(stderr, "%s on %s: %s\n", name.c_str(), b.c_str(),
                     summary(j).c_str());
      }
    }
    std::printf("%s\n", out.dump(2).c_str());
  } catch (const std::exception &e) {
    std::fprintf(stderr, "optimize_bench: %s\n", e.what());
    return 1;
  }
  return 0;
}
