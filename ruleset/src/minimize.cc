//===- minimize.cc - A pack without the rules its others derive -----------===//
#include "quarry/ruleset/minimize.h"

#include "quarry/core/fork_join.h"

#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <deque>
#include <numeric>

namespace quarry::ruleset {

namespace {
/// Rules are decided in blocks of this many. Fixed, so the pack does not
/// depend on the thread count.
constexpr size_t kBlock = 64;
} // namespace

RulePack
minimize_pack(const RulePack &pack, const MinimizeOptions &opts,
              const std::function<void(const MinimizeProgress &)> &progress) {
  // Derivations are the optimizer's rewrites, and a rule with a weight
  // variable does not rewrite an activation there.
  DeriveOptions derive_options = opts.derive_options;
  derive_options.kinds_as_declared = true;
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
  std::vector<rewrite::Transformation> by;
  std::vector<bool> kept(n, false);
  RulePack out;
  MinimizeProgress p{0, n, 0};
  tbb::task_arena arena(opts.threads > 0 ? opts.threads
                                         : tbb::task_arena::automatic);
  for (size_t begin = 0; begin < n; begin += kBlock) {
    const size_t end = std::min(n, begin + kBlock);
    // The block's rules against the rules kept before it, in parallel.
    std::vector<std::optional<Derivation>> found(end - begin);
    const ForkJoin loop;
    arena.execute([&] {
      tbb::parallel_for(begin, end, loop.task([&](size_t k) {
        found[k - begin] = derive(pack.rules[order[k]], by, derive_options);
      }));
    });
    loop.joined();
    // Then in order: a rule kept earlier in the block may derive a later
    // one that the rules before the block do not.
    bool grew = false;
    for (size_t k = begin; k < end; ++k) {
      const size_t i = order[k];
      const Rule &r = pack.rules[i];
      std::optional<Derivation> &d = found[k - begin];
      if (!d && grew)
        d = derive(r, by, derive_options);
      if (d) {
        out.derived.push_back({r.name, std::move(d->steps), d->shapes});
      } else {
        kept[i] = true;
        ++p.kept;
        if (r.preconditions.empty()) {
          grew = true;
          steps.push_back(r);
          by.push_back(rewrite::Transformation::of_rule(steps.back()));
          if (!opts.forward_only && reversible(r)) {
            steps.push_back(reversed_rule(r));
            by.push_back(rewrite::Transformation::of_rule(steps.back()));
          }
        }
      }
      ++p.done;
      if (progress)
        progress(p);
    }
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
           (opts.forward_only ? "forward only" : "both directions") + ")"});
  return out;
}

} // namespace quarry::ruleset
