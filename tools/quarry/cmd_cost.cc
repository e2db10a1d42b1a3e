//===- cmd_cost.cc - quarry cost: what a graph costs, op by op and as run -===//
#include "cli_grammar.h"
#include "commands.h"
#include "run_flags.h"

#include "quarry/runtime/cost_cache.h"
#include "quarry/runtime/plan.h"

#include <cstdio>
#include <memory>

namespace quarry::cli {

namespace {

struct CostOptions : RunFlags {
  std::string cache;
  bool no_plan = false;
};

/// Every running operator alone (a one-operator graph), its kernel in the
/// layout the backend chose for it, from the cost cache or measured.
double operator_costs(const CostOptions &o, const Graph &g,
                      runtime::Backend &backend) {
  runtime::CostCache cache(cost_cache_path(o.cache));
  for (const std::string &w : cache.warnings())
    std::fprintf(stderr, "quarry: warning: %s\n", w.c_str());
  runtime::MeasureOptions measure = o.measure;
  measure.cold_weights = runtime::weights_outgrow_cache(backend, g);
  const std::vector<bool> live = g.live_nodes();
  const std::vector<bool> folded = g.static_nodes();
  double total = 0;
  int measured_ops = 0, folded_ops = 0;
  std::printf("operators, each alone (kernel only, operands in the network's "
              "layout%s):\n",
              measure.cold_weights
                  ? ", weights read from memory: they outgrow the cache"
                  : "");
  std::printf("%-16s %10s  %-8s  %s\n", "node", "ms", "source", "operator");
  for (int32_t id = 0; id < g.num_nodes(); ++id) {
    const Node &n = g.node(id);
    if (!live[id] || n.is_variable())
      continue;
    if (folded[id]) {
      ++folded_ops;
      continue;
    }
    const runtime::OpConfig c = runtime::op_config(g, id, folded);
    bool measured = false;
    double ms = 0;
    try {
      ms = runtime::cached_measure(cache, backend, c, measure, &measured);
    } catch (const Error &e) {
      throw Error(run_subject(o) + ": " + runtime::describe_node(g, id) + ": " +
                  e.what());
    }
    total += ms;
    ++measured_ops;
    const std::string label =
        n.name.empty() ? "#" + std::to_string(id) : n.name;
    std::printf("%-16s %10.4f  %-8s  %s\n", label.c_str(), ms,
                measured ? "measured" : "cached", c.key().c_str());
  }
  std::printf("sum %.4f ms: %d operators", total, measured_ops);
  if (folded_ops > 0)
    std::printf(", %d folded into weights", folded_ops);
  if (cache.unsteady() > 0)
    std::printf(", %d measured while the machine was busy (not cached)",
                cache.unsteady());
  std::printf("\n");
  return total;
}

/// The whole graph as the backend plans it: fused kernels and the reorders
/// between layouts, each step timed alone, and the run timed whole.
void planned_costs(const CostOptions &o, const Model &m,
                   runtime::Backend &backend) {
  const Bindings<float> values = run_values(m, o.measure.seed);
  std::unique_ptr<runtime::Executable> exe;
  try {
    exe = backend.prepare(m.graph, values);
  } catch (const Error &e) {
    throw Error(run_subject(o) + ": " + e.what());
  }
  exe->set_inputs(values);
  const auto steps = exe->profile(o.measure.warmup, o.measure.runs);
  std::printf("\nas planned (steps timed alone):\n");
  char tail[64];
  std::snprintf(tail, sizeof tail, "; whole run %.4f ms",
                runtime::median_ms(*exe, o.measure));
  print_steps(steps, tail);
}

void cost(const CostOptions &o) {
  const Model m = read_run_model(o);
  auto backend = make_run_backend(o);
  operator_costs(o, m.graph, *backend);
  if (!o.no_plan)
    planned_costs(o, m, *backend);
  std::printf("on %s (%s)\n", o.backend.c_str(),
              backend->device_name().c_str());
}

} // namespace

void register_cost_command(CLI::App &app) {
  auto o = std::make_shared<CostOptions>();
  CLI::App *cmd = app.add_subcommand(
      "cost", "Measure (or look up) every operator's cost on a backend, and "
              "time the graph as the backend plans it");
  add_run_flags(*cmd, *o);
  cmd->add_option("--cost-cache", o->cache,
                  "Cost cache file (default $QUARRY_COST_CACHE or "
                  "~/.cache/quarry/op_costs.tsv)");
  add_old_spelling(*cmd, "--cache", o->cache, "--cost-cache");
  cmd->add_flag("--no-plan", o->no_plan,
                "Only the operators alone, not the planned graph");
  cmd->callback([o] { cost(*o); });
}

} // namespace quarry::cli
