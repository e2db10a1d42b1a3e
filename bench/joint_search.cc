//===- joint_search.cc - Substitutions and implementations, apart and joint
//===//
//
// TASO's experiment E4: how much of a network's gain comes from graph
// substitutions, how much from choosing how operators run, and whether
// searching the two together finds more than one after the other. Per
// network (the built-in ones at batch 1, or ONNX files), quarry optimize's
// search and selection run four ways on one cost model:
//   substitution  the rule pack and fusions, operators run the default way
//   choice        only the implementation choices the backend offers,
//                 and its other activation layouts for every convolution
//                 of the graph chosen (layout_trial.h)
//   sequential    choice, run on substitution's result
//   joint         the rules, fusions and choices in one search
// Each way keeps the original unless a candidate measured faster (never
// slower, as quarry optimize). Then the original and the four results are
// timed in turn, round after round, each prepared afresh --placements
// times (in reversed order every other time, so that no graph is always
// first), and the JSON gives each one's median over all its runs,
// its speed-up over the original's median in the same rounds, its search
// time, the rules applied and the choices made, and the largest relative
// error of its outputs, run as the backend runs them, against the
// original on the reference semantics.
//
//   build/bin/joint_search [--models a,b] [FILE.onnx ...] [--rules FILE]
//       [--budget N] [--threads N] [--rounds N] [--placements N]
//       [--cost-cache FILE]
//       [--input-shape NAME=DxD ...]
//
//===----------------------------------------------------------------------===//
#include "bench_cli.h"
#include "provenance.h"

#include "quarry/core/timed_in_turn.h"
#include "quarry/models/model_file.h"
#include "quarry/models/zoo.h"
#include "quarry/optimizer/report.h"
#include "quarry/optimizer/rule_policy.h"
#include "quarry/rulepack/rule_pack_io.h"
#include "quarry/runtime/backends.h"
#include "quarry/runtime/measure.h"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

namespace {

using namespace quarry;

struct Args {
  std::vector<std::string> models, files, shapes;
  std::string rules = QUARRY_SOURCE_DIR "/rules/quarry-k3.min.pb";
  std::string cache = "joint_search_costs.tsv";
  int budget = 1000, threads = 1, rounds = 15, placements = 3;
};

struct Way {
  const char *name;
  bool rules, choices;
};
constexpr Way kWays[] = {{"substitution", true, false},
                         {"choice", false, true},
                         {"joint", true, true}};

/// What one way of optimizing gave.
struct Outcome {
  std::string name;
  Model model;
  double search_seconds = 0;
  int expanded = 0;
  std::vector<std::string> applied, implementations;
  std::string kept_because;
};

class Bench {
public:
  Bench(const Args &a, runtime::Backend &backend)
      : a_(a), backend_(backend), pack_(read_rule_pack(a.rules)),
        cache_(a.cache) {
    opt::require_proved(pack_, a.rules, false);
    offers_ = [this](const Graph &g, int32_t id) {
      return backend_.implementations(g, id);
    };
    search_.budget = a.budget;
    search_.threads = 1;
  }

  nlohmann::json run(const std::string &name, const Model &original) {
    std::vector<Outcome> outcomes;
    for (const Way &way : kWays)
      outcomes.push_back(optimize(way.name, original, way.rules, way.choices));
    // Sequential: the choices searched on what the substitutions left.
    Outcome sequential = optimize("sequential", outcomes[0].model, false, true);
    sequential.search_seconds += outcomes[0].search_seconds;
    sequential.expanded += outcomes[0].expanded;
    sequential.applied.insert(sequential.applied.begin(),
                              outcomes[0].applied.begin(),
                              outcomes[0].applied.end());
    outcomes.insert(outcomes.begin() + 2, std::move(sequential));

    // Where a graph's weights land moves a memory-bound one by several
    // percent from one preparation to the next: every graph is prepared
    // afresh for each placement, and the placements' runs pooled.
    std::vector<std::vector<double>> ms(outcomes.size() + 1);
    for (int placement = 0; placement < a_.placements; ++placement) {
      std::vector<std::function<double()>> timers{
          opt::backend_timer(backend_, 3, 1)(original.graph, original.weights)};
      for (const Outcome &o : outcomes)
        timers.push_back(
            opt::backend_timer(backend_, 3, 1)(o.model.graph, o.model.weights));
      TurnPolicy policy;
      policy.rounds = a_.rounds;
      policy.alternate = true; // each graph first as often as last
      const std::vector<std::vector<double>> runs =
          time_in_turn(timers, policy);
      for (size_t i = 0; i < runs.size(); ++i)
        ms[i].insert(ms[i].end(), runs[i].begin(), runs[i].end());
    }
    const double original_ms = quantile(ms[0], 0.5);

    nlohmann::json j;
    j["model"] = bench::portable_paths(name);
    j["operators"] = original.graph.num_operators();
    j["original_ms"] = original_ms;
    for (size_t i = 0; i < outcomes.size(); ++i) {
      const Outcome &o = outcomes[i];
      const double median = quantile(ms[i + 1], 0.5);
      nlohmann::json w;
      w["ms"] = median;
      w["speedup"] = original_ms / median;
      w["search_seconds"] = o.search_seconds;
      w["expanded"] = o.expanded;
      w["applied"] = o.applied;
      w["implementations"] = o.implementations.size();
      // Of those, the convolutions that run in a layout the trial kept.
      w["in_a_layout"] =
          std::count_if(o.implementations.begin(), o.implementations.end(),
                        [](const std::string &way) {
                          return way.find(" layout=") != std::string::npos;
                        });
      if (!o.kept_because.empty())
        w["kept_original_because"] = o.kept_because;
      w["max_relative_error"] =
          opt::output_error(original, o.model, 1,
                            o.implementations.empty() ? nullptr : &backend_);
      j[o.name] = w;
      std::fprintf(stderr, "%s %s: %.3f ms, %.3fx, search %.2f s\n",
                   name.c_str(), o.name.c_str(), median, original_ms / median,
                   o.search_seconds);
    }
    return j;
  }

private:
  Outcome optimize(const char *name, const Model &m, bool rules, bool choices) {
    static const RulePack none;
    const std::vector<rewrite::Transformation> ts =
        rewrite::make_transformations(
            rules ? pack_ : none,
            {.fusions = rules,
             .implementations =
                 choices ? offers_ : rewrite::ImplementationsFn{}});
    runtime::MeasureOptions measure{1, 3, 1};
    measure.cold_weights = runtime::weights_outgrow_cache(backend_, m.graph);
    opt::CostModel cost(backend_, cache_, measure);
    opt::SelectOptions select;
    select.rounds = a_.rounds;
    select.attribute = false;
    select.timer = opt::backend_timer(backend_, 3, 1);
    select.choices_on = &backend_;
    if (choices)
      select.layouts = backend_.graph_layouts();
    const opt::OptimizeResult r =
        opt::optimize(m, ts, cost, search_, select, 1);
    Outcome o{name,
              r.model,
              r.search.seconds,
              r.search.expanded,
              {},
              r.implementations,
              r.kept_original && !r.layout_kept() ? r.kept_because : ""};
    opt::ReportInput in{name,
                        a_.rules,
                        std::string(backend_.name()),
                        search_,
                        &m,
                        &r,
                        &ts,
                        cost.measured(),
                        std::nullopt};
    o.applied = opt::applied_names(in);
    return o;
  }

  const Args &a_;
  runtime::Backend &backend_;
  RulePack pack_;
  runtime::CostCache cache_;
  rewrite::ImplementationsFn offers_;
  opt::SearchOptions search_;
};

} // namespace

int main(int argc, char **argv) {
  Args a;
  CLI::App app{"Substitutions and implementation choices, apart and joint "
               "(TASO's E4), as JSON",
               "joint_search"};
  bench::flag_defaults(app);
  app.add_option("files", a.files, "ONNX files (besides --models)")
      ->check(CLI::ExistingFile);
  app.add_option("--models", a.models,
                 "Built-in networks, comma-separated (default: all six when "
                 "no file is given)")
      ->delimiter(',')
      ->allow_extra_args(false);
  app.add_option("--rules", a.rules, "Rule pack");
  app.add_option("--budget", a.budget, "Graphs each search expands at most")
      ->check(bench::at_least(0));
  app.add_option("--threads", a.threads, "cpu threads")
      ->check(bench::at_least(1));
  app.add_option("--rounds", a.rounds,
                 "Rounds of timing, in selection and at the end")
      ->check(bench::at_least(1));
  app.add_option("--placements", a.placements,
                 "Final timing: each graph prepared this many times, "
                 "--rounds rounds each, in turn, runs pooled")
      ->check(bench::at_least(1));
  app.add_option("--cost-cache", a.cache, "Operator cost file");
  app.add_option("--input-shape", a.shapes,
                 "ONNX files: fix an input's dimensions, name=1x3x224x224")
      ->allow_extra_args(false);
  bench::parse_or_exit(app, argc, argv);
  if (a.models.empty() && a.files.empty())
    for (const ModelInfo &m : model_list())
      a.models.emplace_back(m.name);
  try {
    runtime::BackendOptions bo;
    bo.threads = a.threads;
    auto backend = runtime::make_backend("cpu", bo);
    Bench bench(a, *backend);
    nlohmann::json out = bench::provenance(argc, argv);
    out["device"] = backend->device_name();
    out["rules"] = bench::portable_paths(a.rules);
    out["rules_hash"] = bench::file_hash(a.rules);
    out["budget"] = a.budget;
    out["rounds"] = a.rounds;
    out["placements"] = a.placements;
    for (const std::string &name : a.models) {
      ModelOptions mo;
      mo.batch = 1;
      out["results"].push_back(bench.run(name, build_model(name, mo)));
    }
    OnnxImportOptions io;
    for (const std::string &s : a.shapes)
      io.input_shapes.insert(parse_input_shape(s));
    for (const std::string &f : a.files)
      out["results"].push_back(bench.run(f, load_graph_any(f, io)));
    std::printf("%s\n", out.dump(2).c_str());
  } catch (const std::exception &e) {
    std::fprintf(stderr, "joint_search: %s\n", e.what());
    return 1;
  }
  return 0;
}
