//===- run_flags.cc - Flags shared by quarry run and quarry cost ----------===//
#include "run_flags.h"

#include "quarry/core/text.h"
#include "quarry/runtime/run_inputs.h"

namespace quarry::cli {

void add_run_flags(CLI::App &cmd, RunFlags &f) {
  cmd.add_option("--graph", f.graph, "Graph in the text form")->required();
  cmd.add_option("--backend", f.backend, "reference, cpu or cuda")
      ->check(CLI::IsMember({"reference", "cpu", "cuda"}));
  cmd.add_option("--batch", f.batch,
                 "Replace dimension 0 of every input with this")
      ->check(CLI::PositiveNumber);
  cmd.add_option("--runs", f.measure.runs,
                 "Timed runs (the median is reported)")
      ->check(CLI::PositiveNumber);
  cmd.add_option("--warmup", f.measure.warmup, "Untimed runs before timing")
      ->check(CLI::NonNegativeNumber);
  cmd.add_option("--seed", f.measure.seed,
                 "Seed of the random inputs and weights");
}

Graph read_run_graph(const RunFlags &f) {
  Graph g = read_graph_file(f.graph);
  if (f.batch == 0)
    return g;
  try {
    return runtime::with_batch(g, f.batch);
  } catch (const Error &e) {
    throw Error(f.graph + ": " + e.what());
  }
}

} // namespace quarry::cli
