//===- minimize.cc - A pack without the rules its others derive -----------===//
#include "quarry/coverage/minimize.h"

#include <algorithm>
#include <deque>
#include <numeric>

namespace quarry::coverage {

RulePack
minimize_pack(const RulePack &pack, const MinimizeOptions &opts,
              const std::function<void(const MinimizeProgress &)> &progress) {
  const size_t n = pack.rules.size();
  std::vector<size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  auto size_of = [&](size_t i) {
    return pack.rules[i].source.num_operators() +
           pack.rules[i].target.num_operators();
  };
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    if (size_of(a) != size_of(b))
      return size_of(a) < size_of(b);
    return pack.rules[a].name < pack.rules[b].name;
  });

  // Transformations point at their rules: a deque keeps them in place.
  std::deque<Rule> steps;
  std::vector<opt::Transformation> by;
  std::vector<bool> kept(n, false);
  RulePack out;
  MinimizeProgress p{0, n, 0};
  for (size_t i : order) {
    const Rule &r = pack.rules[i];
    if (auto d = derive(r, by, opts.derive_options)) {
      out.derived.push_back({r.name, std::move(d->steps), d->shapes});
    } else {
      kept[i] = true;
      ++p.kept;
      if (r.preconditions.empty()) {
        steps.push_back(r);
        by.push_back({r.name, &steps.back(), {}});
        if (opts.both_directions) {
          steps.push_back(reversed_rule(r));
          by.push_back({steps.back().name, &steps.back(), {}});
        }
      }
    }
    ++p.done;
    if (progress)
      progress(p);
  }
  // What an earlier minimizing left out stays left out; a step through a
  // rule this one left out becomes that rule's derivation (by kept rules).
  std::vector<DerivedRule> earlier;
  for (const DerivedRule &d : pack.derived) {
    DerivedRule e{d.name, {}, d.shapes};
    for (const std::string &step : d.steps) {
      const std::string_view base = step_rule(step);
      auto via =
          std::find_if(out.derived.begin(), out.derived.end(),
                       [&](const DerivedRule &x) { return x.name == base; });
      if (via == out.derived.end()) {
        e.steps.push_back(step);
        continue;
      }
      std::vector<std::string> sub = via->steps;
      if (base != step) { // applied backwards: undo its steps in reverse
        std::reverse(sub.begin(), sub.end());
        for (std::string &s : sub)
          s = reversed_step(s);
      }
      e.steps.insert(e.steps.end(), sub.begin(), sub.end());
    }
    earlier.push_back(std::move(e));
  }
  out.derived.insert(out.derived.begin(), earlier.begin(), earlier.end());
  out.header = pack.header;
  for (size_t i = 0; i < n; ++i)
    if (kept[i])
      out.rules.push_back(pack.rules[i]);
  out.header.operators = operators_used(out.rules);
  out.header.settings.push_back(
      {"minimized",
       "kept " + std::to_string(p.kept) + " of " + std::to_string(n) +
           " rules (derivations of at most " +
           std::to_string(opts.derive_options.max_steps) + " steps over " +
           std::to_string(opts.derive_options.max_graphs) + " graphs, " +
           (opts.both_directions ? "both directions" : "forward only") + ")"});
  return out;
}

} // namespace quarry::coverage
