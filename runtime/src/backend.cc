//===- backend.cc - What every Executable shares --------------------------===//
#include "quarry/runtime/backend.h"

#include "quarry/runtime/measure.h"

namespace quarry::runtime {

std::vector<Tensor<float>> run_once(Executable &e,
                                    const Bindings<float> &inputs) {
  e.set_inputs(inputs);
  e.execute();
  return e.outputs();
}

std::vector<StepInfo> Executable::steps() const {
  return {StepInfo{"graph", "", "plain", false, {}, 0.0}};
}

std::vector<StepInfo> Executable::profile(int warmup, int runs) {
  std::vector<StepInfo> s = steps();
  if (s.size() == 1)
    s[0].ms = median_ms(*this, MeasureOptions{warmup, runs, 1});
  return s;
}

std::vector<bool> Backend::fused_away(const Graph &) const { return {}; }

std::vector<Attrs> Backend::implementations(const Graph &, int32_t) const {
  return {};
}

StepCounts count_steps(const std::vector<StepInfo> &steps) {
  StepCounts c;
  for (const StepInfo &s : steps) {
    if (s.reorder) {
      ++c.reorders;
      continue;
    }
    ++c.kernels;
    c.fused_nodes += s.nodes.empty() ? 0 : static_cast<int>(s.nodes.size()) - 1;
  }
  return c;
}

} // namespace quarry::runtime
