//===- cmd_optimize.cc - quarry optimize: cost-based graph search ---------===//
#include "cli_grammar.h"
#include "commands.h"
#include "run_flags.h"

#include "quarry/core/file_io.h"
#include "quarry/core/progress_line.h"
#include "quarry/core/text.h"
#include "quarry/models/model_file.h"
#include "quarry/models/onnx.h"
#include "quarry/models/onnx_open_dims.h"
#include "quarry/models/zoo.h"
#include "quarry/optimizer/cost_table.h"
#include "quarry/optimizer/report.h"
#include "quarry/optimizer/rule_policy.h"
#include "quarry/rulepack/rule_pack_io.h"
#include "quarry/runtime/backends.h"
#include "quarry/runtime/measure.h"
#include "quarry/staged/open_dims.h"
#include "quarry/staged/staged_executable.h"
#include "quarry/staged/staged_timer.h"

#include <cstdio>
#include <map>
#include <memory>
#include <optional>

namespace quarry::cli {

namespace {

struct OptimizeOptions : RunFlags {
  std::string rules, out, text, report, cache, costs, implementations = "auto";
  bool allow_unverified = false, no_fusions = false, forward_only = false,
       check = false;
  double tolerance = 1e-4;
  opt::SearchOptions search;
  size_t memory_mb = 512;
  int measure_top = 3;
  bool no_attribution = false;
  OnnxExportOptions written;
};

std::string fixed3(double x) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3f", x);
  return text;
}

/// Writes the rewritten `m` to --out; an ONNX model whose open input
/// dimensions --input-shape fixed declares open again those at whose other
/// values it computes what the input model computes (staged/open_dims.h).
void write_rewritten(const OptimizeOptions &o, const Model &m) {
  const bool onnx = o.model.ends_with(".onnx") && o.out.ends_with(".onnx");
  const std::string original = onnx ? read_file_bytes(o.model) : "";
  if (!onnx || o.written.external_data || open_input_dims(original).empty())
    return write_model(m, o.out, o.measure.seed, o.written);
  std::string written;
  try {
    written = export_onnx_bytes(m, o.measure.seed);
  } catch (const Error &) {
    // Past 2 GiB: written with external data, at the fixed dimensions.
    return write_model(m, o.out, o.measure.seed, o.written);
  }
  auto cpu = runtime::make_backend("cpu", run_backend_options(o));
  const staged::OpenDims open =
      staged::keep_open_dims(original, written, run_import_options(o), *cpu,
                             o.measure.seed, o.tolerance, o.model);
  write_file_atomic(o.out, open.model);
  if (open.kept.empty())
    return;
  std::string names;
  for (const std::string &name : open.kept)
    names += (names.empty() ? "" : ", ") + name;
  std::printf("declared open again: %s (at other values of %s the written "
              "model computes what %s computes)\n",
              names.c_str(), open.kept.size() == 1 ? "it" : "them",
              o.model.c_str());
}

void optimize(OptimizeOptions &o) {
  const RulePack pack = read_rule_pack(o.rules);
  opt::require_proved(pack, o.rules, o.allow_unverified);
  const Model original = read_run_model(o);
  o.search.threads = o.threads;
  o.search.memory_budget = o.memory_mb << 20;
  // With --costs, graphs are priced for another machine's device from its
  // cost file: nothing is measured or timed here.
  std::optional<opt::CostTable> table;
  std::unique_ptr<runtime::Backend> backend;
  if (!o.costs.empty()) {
    table.emplace(o.costs, o.backend);
    backend = runtime::make_pricing_backend(o.backend, table->device(),
                                            run_backend_options(o));
  } else {
    backend = make_run_backend(o);
  }
  runtime::CostCache cache(cost_cache_path(o.cache));
  for (const std::string &w : cache.warnings())
    std::fprintf(stderr, "quarry: warning: %s\n", w.c_str());
  runtime::MeasureOptions measure = o.measure;
  measure.cold_weights =
      runtime::weights_outgrow_cache(*backend, original.graph);
  opt::CostModel cost =
      table ? opt::CostModel(
                  [&](const runtime::OpConfig &c) { return table->cost(c); },
                  *backend)
            : opt::CostModel(*backend, cache, measure);
  // ONNX has no place for how an operator runs: a model written there is
  // searched and timed as it will run from that file.
  const bool onnx_out = o.out.ends_with(".onnx");
  const bool chooses =
      o.implementations == "all" || o.implementations == "layout";
  if (chooses && onnx_out)
    throw Error(o.out +
                ": ONNX cannot carry the implementations "
                "--implementations " +
                o.implementations +
                " chooses; write a .qg, or leave --implementations to its "
                "default");
  // A winner's choices are checked against the reference on the whole
  // graph, which no backend runs where the model keeps nodes.
  const bool keeps_nodes = staged::needs_stages(original);
  if (chooses && keeps_nodes)
    throw Error(run_subject(o) + ": --implementations " + o.implementations +
                " needs a model whose graph runs whole; this one keeps "
                "nodes quarry runs between its stages");
  const bool by_default =
      o.implementations == "auto" && !onnx_out && !keeps_nodes;
  rewrite::ImplementationsFn offers;
  if (o.implementations == "all" || by_default)
    offers = [&b = *backend](const Graph &g, int32_t id) {
      return b.implementations(g, id);
    };
  const auto ts =
      rewrite::make_transformations(pack, {.fusions = !o.no_fusions,
                                           .reversed = !o.forward_only,
                                           .implementations = offers});

  ProgressLine line;
  auto progress = [&](const opt::SearchProgress &p) {
    if (!line.due())
      return;
    char buf[160];
    std::snprintf(buf, sizeof buf,
                  "search: expanded %d/%d, queue %zu, seen %zu, best %.4f ms",
                  p.expanded, o.search.budget, p.queue, p.seen, p.best_cost);
    line.show(buf);
  };
  opt::SelectOptions select;
  select.candidates = table ? 0 : o.measure_top;
  select.rounds = o.measure.runs;
  select.attribute = !o.no_attribution;
  select.calibrate = !table;
  select.streams = o.streams;
  if (!table && staged::needs_stages(original)) {
    // Kept nodes run between the graph's stages, each candidate beside them.
    select.timer =
        staged::staged_timer(original.kept_onnx, *backend, o.measure.warmup,
                             o.measure.seed, run_subject(o));
    select.timer_runs_kept_nodes = true;
  } else if (!table) {
    select.timer =
        opt::backend_timer(*backend, o.measure.warmup, o.measure.seed);
    select.choices_on = backend.get();
    select.choice_tolerance = o.tolerance;
    if (chooses || by_default)
      select.layouts = backend->graph_layouts();
  }
  select.phase = [&](const std::string &what) { line.note(what); };
  const opt::OptimizeResult r = opt::optimize(original, ts, cost, o.search,
                                              select, o.measure.seed, progress);
  line.finish();

  opt::ReportInput in{run_subject(o), o.rules, o.backend, o.search,
                      &original,      &r,      &ts,       cost.measured(),
                      std::nullopt};
  in.unsteady_configs = cache.unsteady();
  if (table)
    in.priced = opt::ReportInput::Priced{o.costs, table->device(),
                                         table->found(), table->priced()};
  in.cold_weights = measure.cold_weights;
  if (cache.unsteady() > 0)
    std::fprintf(stderr,
                 "quarry: warning: %d operator measurements found the "
                 "machine busy on every attempt; used, not cached\n",
                 cache.unsteady());
  if (o.check) {
    opt::CheckResult c;
    c.tolerance = o.tolerance;
    // Where the result names how its operators run, as the backend runs
    // them: their rounding is part of what it computes.
    c.max_relative_error =
        opt::output_error(original, r.model, o.measure.seed,
                          r.implementations.empty() ? nullptr : backend.get());
    if (!r.timed.empty()) {
      // Selection timed both already, in turn: the original's median in
      // the chosen graph's pair.
      const opt::TimedGraph &chosen = r.timed[r.chosen];
      c.latency_before_ms = chosen.measured_ms * chosen.measured_speedup;
      c.latency_after_ms = chosen.measured_ms;
      // A layout kept was timed against the chosen graph, in turn.
      if (r.layout_kept())
        c.latency_after_ms /= r.layouts.back().measured_speedup;
    } else {
      c.latency_before_ms = opt::measure_latency(original, *backend, o.measure);
      c.latency_after_ms = opt::measure_latency(r.model, *backend, o.measure);
    }
    in.check = c;
  }
  // Outputs are written only once everything has succeeded.
  if (in.check && !(in.check->max_relative_error <= o.tolerance))
    throw Error(run_subject(o) +
                ": the optimized graph differs from the "
                "original by " +
                std::to_string(in.check->max_relative_error) +
                ", more than --tolerance " + std::to_string(o.tolerance));
  // A rewritten model goes out only where it measured faster, or where
  // the user chose to trust the cost model (--measure-top 0).
  const bool rewritten =
      r.layout_kept() ||
      (!r.steps.empty() &&
       (o.measure_top == 0 || table || (!r.timed.empty() && !r.kept_original)));
  if (!o.out.empty()) {
    if (rewritten)
      write_rewritten(o, r.model);
    else
      write_model_unchanged(model_file(o), original, o.out, o.measure.seed);
    // What an application of the input would find changed (a symbolic
    // dimension that --input-shape fixed, an opset quarry's nodes need).
    if (rewritten && o.model.ends_with(".onnx") && o.out.ends_with(".onnx"))
      for (const std::string &d : interface_differences(
               read_file_bytes(o.model), read_file_bytes(o.out)))
        std::fprintf(stderr, "quarry: warning: %s: %s (in %s)\n", o.out.c_str(),
                     d.c_str(), o.model.c_str());
  }
  if (!o.text.empty())
    write_file_atomic(o.text, print_graph(r.model.graph));
  if (!o.report.empty())
    write_file_atomic(o.report, opt::report_json(in));

  std::printf("cost %.4f ms -> %.4f ms on %s (%s); %d expanded, %zu "
              "distinct graphs, %.2f s, %.0f MiB at most%s\n",
              r.search.initial_cost, r.final_cost, o.backend.c_str(),
              backend->device_name().c_str(), r.search.expanded,
              r.search.distinct, r.search.seconds,
              static_cast<double>(r.search.peak_bytes) / (1 << 20),
              r.search.stopped_by_memory ? " (stopped: memory budget)" : "");
  if (!r.search.at_start.empty()) {
    // Why rules did not pay starts here: what could rewrite the original
    // at all, and what the best single rewrite was predicted to give.
    const opt::StartMatch *best = nullptr;
    for (const opt::StartMatch &m : r.search.at_start)
      if (m.best_cost > 0 && (!best || m.best_cost < best->best_cost))
        best = &m;
    std::printf("%zu transformations rewrite the original",
                r.search.at_start.size());
    if (best)
      std::printf("; the best single rewrite, by %s, predicted %.3fx",
                  ts[best->transformation].name.c_str(),
                  r.search.initial_cost / best->best_cost);
    std::printf(" (report: matched_original)\n");
  }
  if (!r.timed.empty()) {
    std::printf("timed whole:");
    for (size_t i = 0; i < r.timed.size(); ++i)
      std::printf("%s %s%s %.4f ms (predicted %.4f)", i ? "," : "",
                  i == 0 ? "original" : "candidate ",
                  i == 0 ? "" : std::to_string(i).c_str(),
                  r.timed[i].measured_ms, r.timed[i].predicted_ms);
    const opt::TimedGraph &a = r.timed[0], &b = r.timed[r.chosen];
    if (r.kept_original)
      std::printf("\nkept the original: %s\n", r.kept_because.c_str());
    else
      std::printf(
          "\nchose candidate %d: measured %.3fx%s, predicted %.3fx\n", r.chosen,
          b.measured_speedup,
          r.confirmed_speedup > 0
              ? (" (" + fixed3(r.confirmed_speedup) + "x timed again)").c_str()
              : "",
          a.predicted_ms / b.predicted_ms);
  }
  if (!r.implementations.empty()) {
    // Counted by way; the report names each node.
    std::map<std::string, int> ways;
    for (const std::string &chosen : r.implementations)
      ++ways[chosen.substr(chosen.rfind(": ") + 2)];
    std::printf("implementations chosen:");
    for (const auto &[way, count] : ways)
      std::printf("%s %s x%d", way == ways.begin()->first ? "" : ",",
                  way.c_str(), count);
    if (r.implementations_error >= 0)
      std::printf("; outputs within %.2g of the reference\n",
                  r.implementations_error);
    else
      std::printf("\n");
  }
  for (const opt::LayoutTrial &t : r.layouts)
    std::printf(
        "every convolution in %s: measured %.3fx%s against the "
        "chosen graph%s%s\n",
        ops::conv_layout_name(t.layout).c_str(), t.measured_speedup,
        t.confirmed_speedup > 0
            ? (" (" + fixed3(t.confirmed_speedup) + "x timed again)").c_str()
            : "",
        t.kept ? ", kept" : ", not kept: ", t.kept ? "" : t.why_not.c_str());
  if (!r.not_timed.empty())
    std::printf("not timed (%s): the cost model alone chose\n",
                r.not_timed.c_str());
  if (table) {
    const opt::CostTable::Roofline &m = table->roofline();
    std::printf("priced from %s for %s, not timed (no such device here): "
                "%d operator configurations from the file, %d by its "
                "roofline (launch %.4f ms, %.1f GFLOP/s, %.1f GB/s, fitted "
                "to %d of its %zu records)\n",
                o.costs.c_str(), table->device().c_str(), table->found(),
                table->priced(), m.launch_ms, m.flops_per_ms / 1e6,
                m.bytes_per_ms / 1e6, m.fitted_records, table->records());
  }
  if (!o.out.empty()) {
    if (rewritten)
      std::printf("wrote %s: the rewritten model%s\n", o.out.c_str(),
                  table                ? " (priced, not measured: --costs)"
                  : o.measure_top == 0 ? " (not measured: --measure-top 0)"
                                       : "");
    else if (!r.steps.empty())
      std::printf("wrote %s: the input model as it was, since the rewritten "
                  "one could not be measured against it\n",
                  o.out.c_str());
    else
      std::printf("wrote %s: the input model as it was\n", o.out.c_str());
  }
  const auto names = opt::applied_names(in);
  std::printf("applied %zu:\n", names.size());
  for (const auto &n : names)
    std::printf("  %s\n", n.c_str());
  if (in.check)
    std::printf("measured %.4f ms -> %.4f ms (%.2fx); max relative error "
                "%.3g\n",
                in.check->latency_before_ms, in.check->latency_after_ms,
                in.check->latency_before_ms / in.check->latency_after_ms,
                in.check->max_relative_error);
}

} // namespace

void register_optimize_command(CLI::App &app) {
  auto o = std::make_shared<OptimizeOptions>();
  CLI::App *cmd = app.add_subcommand(
      "optimize", "Rewrite a network with a rule pack by cost-based search");
  add_run_flags(*cmd, *o);
  cmd->add_option("--rules", o->rules,
                  "Rule pack (quarry verify --out) or TASO graph_subst.pb")
      ->required();
  cmd->add_flag("--allow-unverified", o->allow_unverified,
                "Apply rules that are not proved (e.g. TASO's imported pack)");
  cmd->add_option("--alpha", o->search.alpha,
                  "Keep exploring graphs up to this factor above the best")
      ->check(CLI::Range(1.0, 10.0));
  cmd->add_option("--budget", o->search.budget, "Graphs expanded at most")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--memory-budget", o->memory_mb,
                  "MiB the search's states and graphs may take (512)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--measure-top", o->measure_top,
                  "Time this many of the cheapest graphs found against the "
                  "original and keep the fastest (0: trust the cost model)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_flag("--no-attribution", o->no_attribution,
                "Do not time the graph after each applied step (the report "
                "then has no per-rule gains)");
  cmd->add_flag("--no-fusions", o->no_fusions,
                "Only the pack's rules, no hand-written fusions");
  cmd->add_flag("--forward-only", o->forward_only,
                "Apply each rule from source to target only (by default a "
                "rule is an equation, also applied from target to source "
                "where the target binds every source variable)");
  cmd->add_option("--implementations", o->implementations,
                  "all: also choose how operators run where the backend "
                  "offers ways (cpu: Winograd convolutions), searched with "
                  "the rules, and try every convolution in each other "
                  "activation layout the backend offers (cpu: nChw16c) on "
                  "the graph chosen, kept in the .qg written; layout: only "
                  "the layouts; off: the backend's default ways; auto "
                  "(default): all unless --out is .onnx, which has no place "
                  "for them")
      ->check(CLI::IsMember({"auto", "off", "layout", "all"}));
  cmd->add_option("--cost-cache", o->cache,
                  "Operator cost file (default $QUARRY_COST_CACHE or "
                  "~/.cache/quarry/op_costs.tsv)");
  auto *costs =
      cmd->add_option(
             "--costs", o->costs,
             "Price graphs from this cost file, written on another "
             "machine (a GPU's, by --cost-cache there), for its device: "
             "nothing is measured or timed here; configurations the "
             "file lacks are priced by a roofline fitted to it")
          ->excludes("--measure-top");
  cmd->add_option("--out", o->out,
                  "Optimized model: .onnx, or .qg with its weights file");
  cmd->add_flag("--external-data", o->written.external_data,
                "A rewritten .onnx keeps its tensors of 1 kB or more in "
                "OUT.data beside it (always so past 2 GiB)");
  cmd->add_option("--text", o->text, "Optimized graph in the text form");
  cmd->add_option("--json", o->report, "JSON report");
  add_old_spelling(*cmd, "--report", o->report, "--json");
  cmd->add_flag("--check", o->check,
                "Measure latency before/after and compare outputs on the "
                "reference backend")
      ->excludes(costs);
  cmd->add_option("--tolerance", o->tolerance,
                  "With --check: fail when the outputs differ more; chosen "
                  "implementations are kept only within it");
  cmd->callback([o] { optimize(*o); });
}

} // namespace quarry::cli
