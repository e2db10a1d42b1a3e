//===- staged_timer.cc - Timing graphs of a model that keeps nodes --------===//
#include "quarry/staged/staged_timer.h"

#include "quarry/runtime/plan.h"
#include "quarry/runtime/run_inputs.h"
#include "quarry/staged/staged_executable.h"

#include <chrono>
#include <memory>

namespace quarry::staged {

GraphTimer staged_timer(std::string kept_onnx, runtime::Backend &backend,
                        int warmup, uint64_t seed, std::string file) {
  return [kept_onnx = std::move(kept_onnx), &backend, warmup, seed,
          file = std::move(file)](
             const Graph &g,
             const WeightTable &weights) -> std::function<double()> {
    // What the returned function runs: the candidate as a model beside
    // the kept nodes, and its executable, which reads them.
    struct Prepared {
      Model model;
      std::unique_ptr<runtime::Executable> exe;
    };
    auto p = std::make_shared<Prepared>();
    p->model.graph = g;
    p->model.kept_onnx = kept_onnx;
    // A candidate without an opaque operator is timed without the tail
    // too: the tail is the same for all, and the launch probe is no graph
    // of the model's.
    if (!runtime::why_unrunnable(g).empty())
      p->exe =
          std::make_unique<StagedExecutable>(p->model, weights, backend, file);
    else
      p->exe = backend.prepare(g, weights);
    p->exe->set_inputs(runtime::random_run_inputs(g, seed));
    for (int i = 0; i < warmup; ++i)
      p->exe->execute();
    return [p] {
      const auto t0 = std::chrono::steady_clock::now();
      p->exe->execute();
      return std::chrono::duration<double, std::milli>(
                 std::chrono::steady_clock::now() - t0)
          .count();
    };
  };
}

} // namespace quarry::staged
