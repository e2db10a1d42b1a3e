//===- layout_trial.cc - A whole graph's convolutions in one layout -------===//
#include "quarry/optimizer/layout_trial.h"

#include "quarry/core/timed_in_turn.h"

#include <algorithm>

namespace quarry::opt {

namespace {

/// What a layout is timed against.
constexpr const char *kChosen = "the chosen graph";

} // namespace

Graph with_layout(const Graph &g, ops::ConvLayout layout) {
  return with_attrs(g, [layout](const Node &n) {
    Attrs attrs = n.attrs;
    if (n.kind == OpKind::Conv2D && !attrs.has(ops::Conv2D::kLayout))
      attrs.set(ops::Conv2D::kLayout, static_cast<int64_t>(layout));
    return attrs;
  });
}

void try_layouts(OptimizeResult &r, const SelectOptions &select,
                 uint64_t seed) {
  const Graph &chosen = r.model.graph;
  const bool convolves =
      std::any_of(chosen.nodes().begin(), chosen.nodes().end(),
                  [](const Node &n) { return n.kind == OpKind::Conv2D; });
  if (!convolves || !select.timer)
    return;
  for (ops::ConvLayout layout : select.layouts) {
    LayoutTrial t;
    t.layout = layout;
    if (select.phase)
      select.phase("trying a layout: every convolution in " +
                   ops::conv_layout_name(layout) +
                   ", timed in turn with the chosen graph, " +
                   std::to_string(select.rounds) + " rounds");
    Graph variant = with_layout(chosen, layout);
    // Each pair is let go before the next is prepared.
    auto pair = [&](bool variant_first) {
      std::function<double()> a = select.timer(chosen, r.model.weights);
      std::function<double()> b = select.timer(variant, r.model.weights);
      auto ms = variant_first ? time_in_turn({b, a}, select.rounds)
                              : time_in_turn({a, b}, select.rounds);
      if (variant_first)
        std::swap(ms[0], ms[1]);
      return ms; // [chosen, variant]
    };
    auto ms = pair(false);
    t.measured_speedup = quantile(ms[0], 0.5) / quantile(ms[1], 0.5);
    t.why_not = why_not_a_win(ms[0], ms[1], select.min_gain, kChosen);
    if (t.why_not.empty() && select.confirm) {
      ms = pair(true);
      t.confirmed_speedup = quantile(ms[0], 0.5) / quantile(ms[1], 0.5);
      if (std::string why =
              why_not_a_win(ms[0], ms[1], select.min_gain, kChosen);
          !why.empty())
        t.why_not = "timed again with both prepared afresh " + why;
    }
    if (t.why_not.empty() && select.choices_on) {
      const Model in_layout{variant, r.model.weights, r.model.kept_onnx};
      t.error = output_error(r.model, in_layout, seed, select.choices_on);
      if (!(t.error <= select.choice_tolerance))
        t.why_not = "its outputs differ from the reference's by " +
                    std::to_string(t.error) + ", more than " +
                    std::to_string(select.choice_tolerance);
    }
    t.kept = t.why_not.empty();
    r.layouts.push_back(t);
    if (t.kept) {
      r.model.graph = std::move(variant);
      return;
    }
  }
}

} // namespace quarry::opt
