//===- cmd_cost.cc - quarry cost: per-operator cost table of a graph ------===//
#include "commands.h"
#include "run_flags.h"

#include "quarry/runtime/backends.h"
#include "quarry/runtime/cost_cache.h"
#include "quarry/runtime/plan.h"

#include <cstdio>
#include <memory>

namespace quarry::cli {

namespace {

struct CostOptions : RunFlags {
  std::string cache;
};

void cost(const CostOptions &o) {
  const Model m = read_run_model(o);
  const Graph &g = m.graph;
  auto backend = runtime::make_backend(o.backend);
  runtime::CostCache cache(cost_cache_path(o.cache));
  for (const std::string &w : cache.warnings())
    std::fprintf(stderr, "quarry: warning: %s\n", w.c_str());

  const std::vector<bool> live = g.live_nodes();
  const std::vector<bool> folded = runtime::static_nodes(g);
  double total = 0;
  int measured_ops = 0, folded_ops = 0;
  std::printf("%-16s %10s  %-8s  %s\n", "node", "ms", "source", "operator");
  for (int32_t id = 0; id < g.num_nodes(); ++id) {
    const Node &n = g.node(id);
    if (!live[id] || n.is_variable())
      continue;
    if (folded[id]) {
      ++folded_ops;
      continue;
    }
    const runtime::OpConfig c = runtime::op_config(g, id);
    bool measured = false;
    double ms = 0;
    try {
      ms = runtime::cached_measure(cache, *backend, c, o.measure, &measured);
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
  std::printf("total %.4f ms on %s (%s): %d operators", total,
              o.backend.c_str(), backend->device_name().c_str(), measured_ops);
  if (folded_ops > 0)
    std::printf(", %d folded into weights", folded_ops);
  std::printf("\n");
}

} // namespace

void register_cost_command(CLI::App &app) {
  auto o = std::make_shared<CostOptions>();
  CLI::App *cmd = app.add_subcommand(
      "cost", "Measure (or look up) every operator's cost on a backend");
  add_run_flags(*cmd, *o);
  cmd->add_option("--cost-cache,--cache", o->cache,
                  "Cost cache file (default $QUARRY_COST_CACHE or "
                  "~/.cache/quarry/op_costs.tsv)");
  cmd->callback([o] { cost(*o); });
}

} // namespace quarry::cli
