//===- cmd_models.cc - quarry models list|show ----------------------------===//
#include "commands.h"

#include "quarry/models/stats.h"
#include "quarry/models/zoo.h"

#include <cstdio>
#include <memory>

namespace quarry::cli {

namespace {

struct ShowOptions {
  std::string name;
  int64_t batch = 1;
  int64_t size = 0;
};

void list() {
  for (const ModelInfo &m : model_list())
    std::printf("%-13s %s\n", std::string(m.name).c_str(),
                std::string(m.description).c_str());
}

void show(const ShowOptions &o) {
  const Model m = build_model(
      o.name, {.batch = o.batch, .size = o.size, .weight_values = false});
  const GraphStats s = graph_stats(m.graph);
  std::printf("%s (batch %lld)\n", o.name.c_str(),
              static_cast<long long>(o.batch));
  for (ValueRef v : m.graph.outputs())
    std::printf("output %s\n", m.graph.type(v)->shape.str().c_str());
  for (const auto &[op, count] : s.op_counts)
    std::printf("  %-16s %d\n", op.c_str(), count);
  std::printf("parameters %lld\nflops %lld (%.3g G)\n",
              static_cast<long long>(s.parameters),
              static_cast<long long>(s.flops), double(s.flops) / 1e9);
}

} // namespace

void register_models_command(CLI::App &app) {
  auto *cmd = app.add_subcommand("models", "The benchmark networks");
  cmd->require_subcommand(1);
  cmd->add_subcommand("list", "List the networks")->callback(list);
  auto o = std::make_shared<ShowOptions>();
  auto *s = cmd->add_subcommand(
      "show", "Operator counts, parameters and FLOPs of a network");
  s->add_option("NAME", o->name, "Network name (see `quarry models list`)")
      ->required();
  s->add_option("--batch", o->batch, "Batch size")->check(CLI::PositiveNumber);
  s->add_option("--size", o->size,
                "Image size, or sequence length (bert) / steps (nasrnn); "
                "default: the network's own")
      ->check(CLI::NonNegativeNumber);
  s->callback([o] { show(*o); });
}

} // namespace quarry::cli
