//===- paired_timing.cc - Graphs timed in turn, round after round ---------===//
#include "quarry/optimizer/paired_timing.h"

#include <algorithm>

namespace quarry::opt {

std::vector<std::vector<double>>
time_in_turn(const std::vector<std::function<double()>> &timers, int rounds) {
  std::vector<std::vector<double>> ms(timers.size());
  for (int round = 0; round < std::max(rounds, 1); ++round)
    for (size_t i = 0; i < timers.size(); ++i) {
      if (timers.size() > 1 && (ms[i].empty() || ms[i].back() < kWarmBelowMs))
        timers[i]();
      ms[i].push_back(timers[i]());
    }
  return ms;
}

double quantile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  return v[static_cast<size_t>(q * static_cast<double>(v.size() - 1) + 0.5)];
}

} // namespace quarry::opt
