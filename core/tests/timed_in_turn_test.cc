//===- timed_in_turn_test.cc - The one policy for timing things in turn ---===//
//
// Timers here time nothing: each records that it ran, with its round, and
// returns a fixed number of milliseconds, so the order of runs, which of
// them are timed and how many rounds there are can be checked exactly.
//
//===----------------------------------------------------------------------===//
#include "quarry/core/timed_in_turn.h"

#include "quarry/core/error.h"

#include <gtest/gtest.h>

#include <string>

namespace quarry {
namespace {

/// Timers named by a letter, each taking `ms`; `log` gets "a0" for a run
/// of timer a in round 0.
std::vector<RoundTimer> recording(const std::vector<double> &ms,
                                  std::vector<std::string> &log) {
  std::vector<RoundTimer> timers;
  for (size_t i = 0; i < ms.size(); ++i)
    timers.push_back([&log, i, t = ms[i]](int round) {
      log.push_back(std::string(1, char('a' + i)) + std::to_string(round));
      return t;
    });
  return timers;
}

TEST(TimedInTurn, BriefRunsWarmBeforeEachTimedRunLongOnesOnlyFirst) {
  std::vector<std::string> log;
  TurnPolicy p;
  p.rounds = 2;
  const auto ms = time_in_turn(recording({1.0, 50.0}, log), p);
  // a is brief: untimed then timed in every round; b only before its first.
  EXPECT_EQ(log, (std::vector<std::string>{"a0", "a0", "b0", "b0", "a1", "a1",
                                           "b1"}));
  EXPECT_EQ(ms, (std::vector<std::vector<double>>{{1, 1}, {50, 50}}));
}

TEST(TimedInTurn, OneTimerAloneRunsNothingUntimed) {
  std::vector<std::string> log;
  TurnPolicy p;
  p.rounds = 3;
  p.warmup_rounds = 1;
  const auto ms = time_in_turn(recording({1.0}, log), p);
  EXPECT_EQ(log, (std::vector<std::string>{"a0", "a0", "a1", "a2"}));
  EXPECT_EQ(ms[0].size(), 3u);
}

TEST(TimedInTurn, AlternatingRoundsReverseTheOrder) {
  std::vector<std::string> log;
  TurnPolicy p;
  p.rounds = 2;
  p.alternate = true;
  time_in_turn(recording({30.0, 40.0}, log), p);
  EXPECT_EQ(log,
            (std::vector<std::string>{"a0", "a0", "b0", "b0", "b1", "a1"}));
}

TEST(TimedInTurn, BlocksAfterAGapStartWithAnUntimedRun) {
  std::vector<std::string> log;
  TurnPolicy p;
  p.rounds = 1;
  p.block = 3;
  p.gap_ms = 1;
  const auto ms = time_in_turn(recording({30.0, 40.0}, log), p);
  EXPECT_EQ(log, (std::vector<std::string>{"a0", "a0", "a0", "a0", "b0", "b0",
                                           "b0", "b0"}));
  EXPECT_EQ(ms[0].size(), 3u);
  EXPECT_EQ(ms[1].size(), 3u);
}

TEST(TimedInTurn, MinSecondsAddsRoundsByTheFastestRunRoundedToAMultiple) {
  std::vector<std::string> log;
  TurnPolicy p;
  p.rounds = 2;
  p.min_seconds = 0.1; // 100 ms of the 10 ms timer: 10 rounds
  p.round_multiple = 4;
  const auto ms = time_in_turn(recording({10.0, 25.0}, log), p);
  EXPECT_EQ(ms[0].size(), 12u);
  EXPECT_EQ(ms[1].size(), 12u);
}

TEST(TimedInTurn, TheRoundPicksACopyAndTheSimpleFormIgnoresIt) {
  std::vector<int> rounds;
  TurnPolicy p;
  p.rounds = 3;
  time_in_turn({[&](int r) {
                 rounds.push_back(r);
                 return 100.0;
               }},
               p);
  EXPECT_EQ(rounds, (std::vector<int>{0, 1, 2}));
  int calls = 0;
  const auto ms = time_in_turn({std::function<double()>([&] {
                                 ++calls;
                                 return 5.0;
                               })},
                               0); // at least one round
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(ms, (std::vector<std::vector<double>>{{5}}));
}

TEST(TimedInTurn, ABlockOfNoneIsRefused) {
  TurnPolicy p;
  p.block = 0;
  EXPECT_THROW(time_in_turn(std::vector<RoundTimer>{}, p), Error);
}

TEST(TimedInTurn, QuantilesAreNearestRank) {
  EXPECT_EQ(median({3, 1, 2}), 2);
  EXPECT_EQ(median({4, 1, 3, 2}), 3); // the upper of the middle two
  EXPECT_EQ(quantile({1, 2, 3, 4, 5}, 0.75), 4);
  EXPECT_EQ(median({}), 0);
}

} // namespace
} // namespace quarry
