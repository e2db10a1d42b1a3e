//===- timed_in_turn.cc - Things timed in turn, round after round ---------===//
#include "quarry/core/timed_in_turn.h"

#include "quarry/core/error.h"

#include <algorithm>
#include <thread>

namespace quarry {

std::vector<std::vector<double>>
time_in_turn(const std::vector<RoundTimer> &timers, const TurnPolicy &policy) {
  if (policy.block < 1 || policy.round_multiple < 1 ||
      policy.warmup_rounds < 0 || policy.gap_ms < 0 || policy.min_seconds < 0)
    throw Error("time_in_turn: a block and a round multiple of at least 1, "
                "and no negative warm-up, gap or duration");
  const size_t n = timers.size();
  for (int round = 0; round < policy.warmup_rounds; ++round)
    for (const RoundTimer &t : timers)
      t(round);
  const auto round_up = [&](int rounds) {
    const int m = policy.round_multiple;
    return (std::max(rounds, 1) + m - 1) / m * m;
  };
  std::vector<std::vector<double>> ms(n);
  int rounds = round_up(policy.rounds);
  for (int round = 0; round < rounds; ++round) {
    for (size_t k = 0; k < n; ++k) {
      const size_t i = policy.alternate && round % 2 ? n - 1 - k : k;
      if (policy.gap_ms > 0)
        std::this_thread::sleep_for(
            std::chrono::duration<double, std::milli>(policy.gap_ms));
      if (policy.gap_ms > 0 ||
          (n > 1 && (ms[i].empty() || ms[i].back() < kWarmBelowMs)))
        timers[i](round);
      for (int b = 0; b < policy.block; ++b)
        ms[i].push_back(timers[i](round));
    }
    if (round == 0 && policy.min_seconds > 0 && n > 0) {
      double fastest = ms[0].front();
      for (const auto &samples : ms)
        fastest = std::min(fastest, samples.front());
      const double wanted =
          policy.min_seconds * 1e3 / std::max(fastest, 1e-3) / policy.block;
      rounds = std::max(rounds, round_up(static_cast<int>(
                                    std::min(wanted, 1e6 / policy.block))));
    }
  }
  return ms;
}

std::vector<std::vector<double>>
time_in_turn(const std::vector<std::function<double()>> &timers,
             const TurnPolicy &policy) {
  std::vector<RoundTimer> each;
  for (const auto &t : timers)
    each.push_back([&t](int) { return t(); });
  return time_in_turn(each, policy);
}

std::vector<std::vector<double>>
time_in_turn(const std::vector<std::function<double()>> &timers, int rounds) {
  TurnPolicy policy;
  policy.rounds = rounds;
  return time_in_turn(timers, policy);
}

double quantile(std::vector<double> v, double q) {
  if (v.empty())
    return 0;
  std::sort(v.begin(), v.end());
  return v[static_cast<size_t>(q * static_cast<double>(v.size() - 1) + 0.5)];
}

} // namespace quarry
