//===- measure_test.cc - Robust timings: outliers and busy machines -------===//
#include "quarry/core/text.h"
#include "quarry/runtime/cost_cache.h"
#include "quarry/runtime/measure.h"
#include "quarry/testing/scratch_dir.h"

#include <gtest/gtest.h>

#include <deque>

namespace quarry::runtime {
namespace {

/// A backend whose one-step graphs take the times a script gives, run by
/// run: what a machine busy for a while does to measurements.
class ScriptedBackend : public Backend {
public:
  explicit ScriptedBackend(std::deque<double> ms) : ms_(std::move(ms)) {}
  std::string_view name() const override { return "scripted"; }
  std::string device_name() const override { return "script"; }
  std::unique_ptr<Executable> prepare(const Graph &,
                                      const Bindings<float> &) override {
    return std::make_unique<Exe>(ms_);
  }
  size_t left() const { return ms_.size(); }

private:
  class Exe : public Executable {
  public:
    explicit Exe(std::deque<double> &ms) : ms_(ms) {}
    void set_inputs(const Bindings<float> &) override {}
    void execute() override {}
    std::vector<Tensor<float>> outputs() override { return {}; }
    std::vector<StepInfo> profile(int, int) override {
      StepInfo s{"kernel", "scripted", "plain", false, {0}, ms_.front()};
      ms_.pop_front();
      return {s};
    }

  private:
    std::deque<double> &ms_;
  };
  std::deque<double> ms_;
};

const OpConfig kRelu{
    OpKind::Relu, make_attrs(OpKind::Relu), {Shape{4}}, {false}};

TEST(Measure, OneSlowRunIsRejected) {
  const Timing t = summarize({1.0, 1.1, 0.9, 1.0, 9.0});
  EXPECT_TRUE(t.steady);
  EXPECT_EQ(t.kept, 4);
  EXPECT_NEAR(t.ms, 1.0, 1e-9);
  EXPECT_EQ(t.min_ms, 0.9);
}

TEST(Measure, MostRunsSlowIsABusyMachine) {
  const Timing t = summarize({0.003, 8.0, 8.1, 7.9, 8.0});
  EXPECT_FALSE(t.steady);
  EXPECT_EQ(t.median_ms, 8.0);
}

/// The canary's runs (cached_measure times it before and after each
/// measurement): three, each `ms`.
void canary(std::deque<double> &script, double ms) {
  script.insert(script.end(), {ms, ms, ms});
}

/// One attempt of cached_measure: the canary, the operator's runs, the
/// canary again.
void attempt(std::deque<double> &script, double before,
             std::initializer_list<double> runs, double after) {
  canary(script, before);
  script.insert(script.end(), runs);
  canary(script, after);
}

std::string relu_key() { return CostCache::key("scripted", "script", kRelu); }

/// A cache in `dir` whose fastest canary on record took `ms`.
CostCache cache_with_canary(const quarry::testing::ScratchDir &dir, double ms) {
  CostCache cache(dir.file("costs.tsv"));
  cache.insert(CostCache::key("scripted", "script", canary_config()), ms);
  return cache;
}

TEST(Measure, ABusySpellIsRetakenAndTheCalmTimingCached) {
  // The known failure: 8 ms recorded for a 3 us operator.
  std::deque<double> script;
  attempt(script, 0.1, {0.003, 8.0, 8.0, 8.0, 8.0}, 0.1);
  attempt(script, 0.1, {0.003, 0.003, 0.004, 0.003, 0.003}, 0.1);
  ScriptedBackend b(script);
  quarry::testing::ScratchDir dir;
  CostCache cache = cache_with_canary(dir, 0.1);
  bool measured = false;
  const double ms = cached_measure(cache, b, kRelu, {0, 5, 1, 3}, &measured);
  EXPECT_TRUE(measured);
  EXPECT_NEAR(ms, 0.003, 2e-4);
  EXPECT_EQ(b.left(), 0u); // two attempts
  EXPECT_NEAR(*cache.find(relu_key()), 0.003, 2e-4);
  EXPECT_EQ(cache.unsteady(), 0);
}

TEST(Measure, ASpellThatSlowsEveryRunAlikeShowsInTheCanary) {
  // Every run twice as slow agrees with itself; only the canary, slower
  // after than before, tells. The measurement is taken again.
  std::deque<double> script;
  attempt(script, 0.1, {2.0, 2.0, 2.0, 2.0, 2.0}, 0.2);
  attempt(script, 0.1, {1.0, 1.0, 1.0, 1.0, 1.0}, 0.1);
  ScriptedBackend b(script);
  quarry::testing::ScratchDir dir;
  CostCache cache = cache_with_canary(dir, 0.1);
  EXPECT_NEAR(cached_measure(cache, b, kRelu, {0, 5, 1, 3}), 1.0, 1e-9);
  EXPECT_EQ(b.left(), 0u);
  EXPECT_NEAR(*CostCache(dir.file("costs.tsv")).find(relu_key()), 1.0, 1e-9);
}

TEST(Measure, TheFirstCanaryIsTheFastestOfSeveralSpreadOverTime) {
  // A fresh cache, the machine in a slow spell for the first half of the
  // baseline's samples: the baseline is the fast canary, and a
  // measurement made in the spell is taken again.
  std::deque<double> script;
  for (int i = 0; i < 10; ++i)
    canary(script, i < 5 ? 0.2 : 0.1);
  attempt(script, 0.2, {2.0, 2.0, 2.0, 2.0, 2.0}, 0.2);
  attempt(script, 0.1, {1.0, 1.0, 1.0, 1.0, 1.0}, 0.1);
  ScriptedBackend b(script);
  quarry::testing::ScratchDir dir;
  CostCache cache(dir.file("costs.tsv"));
  EXPECT_NEAR(cached_measure(cache, b, kRelu, {0, 5, 1, 3}), 1.0, 1e-9);
  EXPECT_EQ(b.left(), 0u);
  EXPECT_NEAR(
      *cache.find(CostCache::key("scripted", "script", canary_config())), 0.1,
      1e-9);
}

TEST(Measure, AMachineBusyThroughoutIsNeverCached) {
  std::deque<double> op, with_canary;
  for (int attempt = 0; attempt < 3; ++attempt) {
    canary(with_canary, 0.1);
    for (double ms : {0.003, 6.0 + attempt, 8.0, 8.0, 8.0}) {
      op.push_back(ms);
      with_canary.push_back(ms);
    }
    canary(with_canary, 0.1);
  }
  ScriptedBackend b(op);
  quarry::testing::ScratchDir dir;
  CostCache cache = cache_with_canary(dir, 0.1);
  const OpCost cost = measure_op(b, kRelu, {0, 5, 1, 3});
  EXPECT_FALSE(cost.steady);
  EXPECT_EQ(cost.attempts, 3);
  ScriptedBackend again(with_canary);
  bool measured = false;
  cached_measure(cache, again, kRelu, {0, 5, 1, 3}, &measured);
  EXPECT_TRUE(measured);
  EXPECT_EQ(again.left(), 0u);
  EXPECT_FALSE(cache.find(relu_key()).has_value());
  EXPECT_EQ(cache.unsteady(), 1);
  // Nothing was written for it: a later reader finds no record.
  EXPECT_FALSE(CostCache(dir.file("costs.tsv")).find(relu_key()).has_value());
}

} // namespace
} // namespace quarry::runtime
