//===- unsat_core.cc - Which assumptions a proof needs --------------------===//
#include "quarry/verify/unsat_core.h"

#include "quarry/verify/watchdog.h"

#include <algorithm>

namespace quarry::verify {

std::vector<size_t> unsat_core(const z3::solver &solver,
                               const std::vector<z3::expr> &lits) {
  std::vector<size_t> core;
  const z3::expr_vector c = const_cast<z3::solver &>(solver).unsat_core();
  for (unsigned k = 0; k < c.size(); ++k)
    for (size_t i = 0; i < lits.size(); ++i)
      if (z3::eq(c[k], lits[i]))
        core.push_back(i);
  return core;
}

MinimizedCore minimize_core(z3::solver &solver,
                            const std::vector<z3::expr> &lits,
                            std::vector<size_t> core,
                            const CoreMinimization &how) {
  MinimizedCore r;
  const uint64_t start = resources_used(solver);
  for (size_t k = 0; k < core.size();) {
    if (how.droppable && !how.droppable(core[k])) {
      ++k;
      continue;
    }
    const uint64_t used = resources_used(solver) - start;
    if (used >= how.total) {
      r.cut_short = true;
      break;
    }
    std::vector<size_t> rest = core;
    rest.erase(rest.begin() + static_cast<std::ptrdiff_t>(k));
    z3::expr_vector assumed(solver.ctx());
    for (size_t i : rest)
      assumed.push_back(lits[i]);
    const unsigned budget = static_cast<unsigned>(
        std::min<uint64_t>(how.per_try, how.total - used));
    if (check_within(solver, assumed, how.seconds_left(), budget) !=
        z3::unsat) {
      ++k;
      continue;
    }
    if (how.take_smaller_core) {
      std::vector<size_t> smaller = unsat_core(solver, lits);
      std::sort(smaller.begin(), smaller.end());
      core = smaller.size() < rest.size() ? std::move(smaller) : rest;
      k = 0;
    } else {
      core = std::move(rest);
    }
  }
  r.core = std::move(core);
  return r;
}

} // namespace quarry::verify
