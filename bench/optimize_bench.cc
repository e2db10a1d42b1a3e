//===- optimize_bench.cc - Networks before and after quarry optimize -----===//
//
// Prints JSON: per network at batch 1, per backend at hand (cpu; cuda when
// a GPU is present), the measured latency of the original and of the
// optimized graph (median of --runs after --warmup), their ratio, the cost
// model's estimates, search time and the steps applied, with the rule pack
// named by --rules (quarry's verified pack by default; TASO's collection
// needs --allow-unverified). --size picks the input size (0: each network's
// own) and --budget the search budget. A network the backend cannot run
// whole (an operator without a kernel there) gets its search and output
// check but a `latency_error` instead of latencies.
//
//   build/bin/optimize_bench [--rules FILE] [--allow-unverified]
//       [--budget N] [--alpha A] [--size S] [--runs N] [--warmup N]
//       [--cost-runs N]
//       [--models a,b,...] [--cost-cache FILE] [--check]
//
// --check also compares the outputs of both graphs on the reference backend
// (slow at full size: the reference is plain loops).
//
//===----------------------------------------------------------------------===//
#include "quarry/core/split_list.h"
#include "quarry/models/zoo.h"
#include "quarry/optimizer/report.h"
#include "quarry/optimizer/rule_policy.h"
#include "quarry/rules/rule_pack_io.h"
#include "quarry/runtime/backends.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

namespace {

using namespace quarry;

struct Args {
  std::string rules = QUARRY_SOURCE_DIR "/rules/quarry-k3.verified.pb";
  std::string cache = "optimize_bench_costs.tsv";
  bool allow_unverified = false;
  bool check = false; ///< also compare outputs on the reference backend
  opt::SearchOptions search;
  int64_t size = 0;
  runtime::MeasureOptions measure{3, 10, 1};
  /// Per-operator measurements for the cost model (fewer runs: there are
  /// many configurations, each measured once).
  runtime::MeasureOptions cost_measure{1, 3, 1};
  std::vector<std::string> models;
};

Args parse(int argc, char **argv) {
  Args a;
  a.search.budget = 20;
  for (const ModelInfo &m : model_list())
    a.models.emplace_back(m.name);
  for (int i = 1; i < argc; ++i) {
    const std::string k = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc)
        throw Error(k + " needs a value");
      return argv[++i];
    };
    if (k == "--rules")
      a.rules = next();
    else if (k == "--allow-unverified")
      a.allow_unverified = true;
    else if (k == "--check")
      a.check = true;
    else if (k == "--budget")
      a.search.budget = std::stoi(next());
    else if (k == "--alpha")
      a.search.alpha = std::stod(next());
    else if (k == "--size")
      a.size = std::stoll(next());
    else if (k == "--runs")
      a.measure.runs = std::stoi(next());
    else if (k == "--cost-runs")
      a.cost_measure.runs = std::stoi(next());
    else if (k == "--warmup")
      a.measure.warmup = std::stoi(next());
    else if (k == "--models")
      a.models = split_list(next());
    else if (k == "--cost-cache")
      a.cache = next();
    else
      throw Error("unknown argument " + k);
  }
  return a;
}

nlohmann::json run_one(const Args &a, const std::string &name,
                       const std::vector<opt::Transformation> &ts,
                       runtime::Backend &backend, runtime::CostCache &cache) {
  ModelOptions mo;
  mo.batch = 1;
  mo.size = a.size;
  const Model m = build_model(name, mo);
  opt::CostModel cost(backend, cache, a.cost_measure);
  const opt::OptimizeResult r = opt::optimize(m, ts, cost, a.search);
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
  try {
    const double before = opt::measure_latency(m, backend, a.measure);
    const double after = opt::measure_latency(r.model, backend, a.measure);
    j["latency_ms_original"] = before;
    j["latency_ms_optimized"] = after;
    j["speedup"] = before / after;
  } catch (const Error &e) {
    // A network with an operator this backend lacks (BERT's softmax on
    // cpu): the search still ran, with reference costs for that operator.
    j["latency_error"] = e.what();
  }
  j["cost_fallback_configs"] = cost.fallbacks();
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

} // namespace

int main(int argc, char **argv) {
  try {
    const Args a = parse(argc, argv);
    const RulePack pack = read_rule_pack(a.rules);
    opt::require_proved(pack, a.rules, a.allow_unverified);
    const auto ts = opt::make_transformations(pack);
    std::vector<std::string> backends{"cpu"};
    if (runtime::cuda_backend_built()) {
      try {
        runtime::make_backend("cuda");
        backends.push_back("cuda");
      } catch (const Error &) {
        // No GPU on this machine.
      }
    }
    runtime::CostCache cache(a.cache);
    nlohmann::json out;
    out["rules"] = a.rules;
    out["rule_count"] = pack.rules.size();
    out["budget"] = a.search.budget;
    out["alpha"] = a.search.alpha;
    out["size"] = a.size;
    out["runs"] = a.measure.runs;
    for (const std::string &b : backends) {
      auto backend = runtime::make_backend(b);
      out["device"][b] = backend->device_name();
      for (const std::string &name : a.models) {
        out["networks"].push_back(run_one(a, name, ts, *backend, cache));
        std::fprintf(stderr, "%s on %s done\n", name.c_str(), b.c_str());
      }
    }
    std::printf("%s\n", out.dump(2).c_str());
  } catch (const std::exception &e) {
    std::fprintf(stderr, "optimize_bench: %s\n", e.what());
    return 1;
  }
  return 0;
}
