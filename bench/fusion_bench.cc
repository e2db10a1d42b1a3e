//===- fusion_bench.cc - conv2d with a fused relu against conv2d, relu ----===//
//
// Prints JSON: for every distinct convolution of the benchmark networks
// (batch 1), measured on the cpu backend,
//   - as the optimizer's cost model sees them: the cost of
//     conv2d[act=relu] alone against the costs of conv2d[act=none] and of
//     relu alone, summed (runtime::measure: each kernel in its own layout);
//   - as graphs run: `conv2d[act=relu](x, w)` against
//     `relu(conv2d(x, w))` with the backend's fusion turned off, and with it
//     on (then both are one kernel);
// and a summary: how many configurations measure the fused form slower
// (a rewrite that un-fuses the relu pays only there). The forms compared
// are timed in turn, round after round (--runs rounds after --warmup), and
// their medians compared.
//
//   build/bin/fusion_bench [--models a,b] [--runs N] [--warmup N]
//       [--threads N]
//
//===----------------------------------------------------------------------===//
#include "bench_cli.h"
#include "bench_networks.h"
#include "provenance.h"

#include "quarry/core/timed_in_turn.h"
#include "quarry/models/zoo.h"
#include "quarry/runtime/backends.h"
#include "quarry/runtime/measure.h"
#include "quarry/runtime/op_config.h"
#include "quarry/runtime/run_inputs.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace {

using namespace quarry;

struct Args {
  std::vector<std::string> models;
  runtime::MeasureOptions measure{3, 15, 1};
  int threads = 0;
};

Args parse(int argc, char **argv) {
  Args a;
  std::string models;
  CLI::App app{"conv2d with a fused relu against conv2d, relu, as JSON",
               "fusion_bench"};
  bench::flag_defaults(app);
  app.add_option("--models", models,
                 "Networks, comma-separated (default: every benchmark "
                 "network)");
  app.add_option("--runs", a.measure.runs, "Rounds timed in turn");
  app.add_option("--warmup", a.measure.warmup, "Untimed rounds before them");
  app.add_option("--threads", a.threads,
                 "cpu threads (0: OMP_NUM_THREADS, else all)");
  bench::parse_or_exit(app, argc, argv);
  a.models = bench::network_names(app, models);
  return a;
}

/// A graph prepared on a backend, with its inputs set.
struct Prepared {
  Graph graph;
  std::unique_ptr<runtime::Executable> exe;
  std::vector<double> ms;
};

Prepared prepare(runtime::Backend &b, Graph g, uint64_t seed) {
  Prepared p{std::move(g), nullptr, {}};
  const Bindings<float> values = runtime::random_run_bindings(p.graph, seed);
  p.exe = b.prepare(p.graph, values);
  p.exe->set_inputs(values);
  return p;
}

/// Times every graph in turn, round after round (timed_in_turn.h), so that
/// a machine busy for a while slows them all alike. `kernels_only`: the
/// sum of the kernel steps (what runtime::measure keeps), else the whole
/// run.
void time_round_robin(std::vector<Prepared *> graphs, bool kernels_only,
                      const runtime::MeasureOptions &m) {
  std::vector<std::function<double()>> timers;
  for (Prepared *p : graphs)
    timers.push_back([p, kernels_only] {
      if (!kernels_only)
        return time_ms([&] { p->exe->execute(); });
      double ms = 0;
      for (const auto &s : p->exe->profile(0, 1))
        ms += s.reorder ? 0 : s.ms;
      return ms;
    });
  TurnPolicy policy;
  policy.rounds = m.runs;
  policy.warmup_rounds = m.warmup;
  const auto ms = time_in_turn(timers, policy);
  for (size_t i = 0; i < graphs.size(); ++i)
    graphs[i]->ms = ms[i];
}

nlohmann::json compare(const runtime::OpConfig &conv, const Args &a,
                       runtime::Backend &fused, runtime::Backend &unfused) {
  runtime::OpConfig with_relu = conv, without = conv;
  with_relu.attrs.set(ops::Conv2D::kAct, int64_t(Activation::Relu));
  without.attrs.set(ops::Conv2D::kAct, int64_t(Activation::None));
  const Graph probe = runtime::single_op_graph(without);
  const Shape y = probe.type(probe.outputs()[0])->shape;
  const runtime::OpConfig relu{
      OpKind::Relu, make_attrs(OpKind::Relu), {y}, {false}};
  // The operators alone, as the cost model measures them.
  Prepared op_fused = prepare(fused, runtime::single_op_graph(with_relu), 1);
  Prepared op_conv = prepare(fused, runtime::single_op_graph(without), 1);
  Prepared op_relu = prepare(fused, runtime::single_op_graph(relu), 1);
  time_round_robin({&op_fused, &op_conv, &op_relu}, true, a.measure);

  // The same two forms as whole graphs.
  Graph one, two;
  for (Graph *g : {&one, &two}) {
    const ValueRef x = g->input("x", conv.inputs[0]);
    const ValueRef w = g->weight("w", conv.inputs[1]);
    if (g == &one) {
      g->mark_output(g->add1(OpKind::Conv2D, with_relu.attrs, {x, w}));
    } else {
      const ValueRef c = g->add1(OpKind::Conv2D, without.attrs, {x, w});
      g->mark_output(g->add1(OpKind::Relu, {c}));
    }
  }
  Prepared graph_fused = prepare(fused, one, 1);
  Prepared graph_unfused = prepare(unfused, two, 1);
  Prepared graph_two_fused = prepare(fused, two, 1);
  time_round_robin({&graph_fused, &graph_unfused, &graph_two_fused}, false,
                   a.measure);

  const double of = median(op_fused.ms), oc = median(op_conv.ms),
               orl = median(op_relu.ms);
  const double gf = median(graph_fused.ms), gu = median(graph_unfused.ms);
  return {{"conv", with_relu.key()},
          {"op_cost_ms",
           {{"conv_relu", of},
            {"conv", oc},
            {"relu", orl},
            {"fused_over_unfused", of / (oc + orl)}}},
          {"graph_ms",
           {{"conv_relu", gf},
            {"conv_then_relu_unfused", gu},
            {"conv_then_relu_backend_fused", median(graph_two_fused.ms)},
            {"fused_over_unfused", gf / gu}}}};
}

} // namespace

int main(int argc, char **argv) {
  try {
    const Args a = parse(argc, argv);
    runtime::BackendOptions on, off;
    on.threads = off.threads = a.threads;
    off.fuse = false;
    auto fused = runtime::make_backend("cpu", on);
    auto unfused = runtime::make_backend("cpu", off);
    nlohmann::json out = bench::provenance(argc, argv);
    out["device"] = fused->device_name();
    out["runs"] = a.measure.runs;
    std::set<std::string> seen;
    int configs = 0, op_slower = 0, graph_slower = 0;
    double worst_op = 0, worst_graph = 0;
    for (const std::string &name : a.models) {
      ModelOptions mo;
      mo.weight_values = false;
      const Model m = build_model(name, mo);
      const std::vector<bool> live = m.graph.live_nodes();
      for (int32_t id = 0; id < m.graph.num_nodes(); ++id) {
        if (!live[id] || m.graph.node(id).kind != OpKind::Conv2D)
          continue;
        runtime::OpConfig c = runtime::op_config(m.graph, id);
        c.attrs.set(ops::Conv2D::kAct, int64_t(Activation::Relu));
        if (!seen.insert(c.key()).second)
          continue;
        nlohmann::json r = compare(c, a, *fused, *unfused);
        r["network"] = name;
        const double op = r["op_cost_ms"]["fused_over_unfused"];
        const double gr = r["graph_ms"]["fused_over_unfused"];
        ++configs;
        op_slower += op > 1.0 ? 1 : 0;
        graph_slower += gr > 1.0 ? 1 : 0;
        worst_op = std::max(worst_op, op);
        worst_graph = std::max(worst_graph, gr);
        out["configs"].push_back(r);
      }
      std::fprintf(stderr, "%s: %d configurations so far\n", name.c_str(),
                   configs);
    }
    out["summary"] = {{"configurations", configs},
                      {"op_cost_fused_slower", op_slower},
                      {"graph_fused_slower", graph_slower},
                      {"worst_op_cost_fused_over_unfused", worst_op},
                      {"worst_graph_fused_over_unfused", worst_graph}};
    std::printf("%s\n", out.dump(2).c_str());
  } catch (const std::exception &e) {
    std::fprintf(stderr, "fusion_bench: %s\n", e.what());
    return 1;
  }
  return 0;
}
