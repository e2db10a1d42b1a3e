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
/// run: what a machine busy for a while does to measurements. It logs
/// what is done to it: p (prepared), s (inputs set), x (executed untimed),
/// r (a timed run), e (caches emptied).
class ScriptedBackend : public Backend {
public:
  explicit ScriptedBackend(std::deque<double> ms, size_t cache_bytes = 0)
      : ms_(std::move(ms)), cache_bytes_(cache_bytes) {}
  std::string_view name() const override { return "scripted"; }
  std::string device_name() const override { return "script"; }
  std::unique_ptr<Executable> prepare(const Graph &,
                                      const Bindings<float> &) override {
    log_ += 'p';
    return std::make_unique<Exe>(ms_, log_);
  }
  size_t cache_bytes() const override { return cache_bytes_; }
  void evict_caches() override { log_ += 'e'; }
  size_t left() const { return ms_.size(); }
  const std::string &log() const { return log_; }

private:
  class Exe : public Executable {
  public:
    Exe(std::deque<double> &ms, std::string &log) : ms_(ms), log_(log) {}
    void set_inputs(const Bindings<float> &) override { log_ += 's'; }
    void execute() override { log_ += 'x'; }
    std::vector<Tensor<float>> outputs() override { return {}; }
    std::vector<StepInfo> profile(int, int) override {
      log_ += 'r';
      StepInfo s{"kernel", "scripted", "plain", false, {0}, ms_.front()};
      ms_.pop_front();
      return {s};
    }

  private:
    std::deque<double> &ms_;
    std::string &log_;
  };
  std::deque<double> ms_;
  size_t cache_bytes_;
  std::string log_;
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

/// Measured as inside a network whose weights outgrow the caches: warm-up
/// 1, runs 2, over 2 placements; no canary.
MeasureOptions cold(int placements = 2) {
  MeasureOptions o{1, 2, 1, 1, false};
  o.cold_weights = true;
  o.cold_placements = placements;
  return o;
}

TEST(Measure, ColdEveryTimedRunStartsWithTheCachesEmptiedAndInputsSet) {
  // Each placement is a preparation of its own, warmed up; before each
  // timed run the caches are emptied and the inputs set again, so that
  // the weights come from memory and the computed operands from cache.
  ScriptedBackend b({1.0, 1.0, 1.0, 1.0});
  measure_op(b, kRelu, cold());
  EXPECT_EQ(b.log(), "psx"
                     "esr"
                     "esr"
                     "psx"
                     "esr"
                     "esr");
  // Warm: one preparation, nothing emptied.
  ScriptedBackend warm({1.0, 1.0});
  measure_op(warm, kRelu, {1, 2, 1, 1, false});
  EXPECT_EQ(warm.log(), "psx"
                        "r"
                        "r");
}

TEST(Measure, APlacementThatLandsBadlyDoesNotSetTheColdCost) {
  // Where the weights land changes a memory-bound kernel's time; the runs
  // of three placements are pooled, and the odd one is an outlier.
  ScriptedBackend b({1.0, 1.0, 1.6, 1.6, 1.0, 1.0});
  const OpCost cost = measure_op(b, kRelu, cold(3));
  EXPECT_EQ(b.left(), 0u);
  EXPECT_NEAR(cost.ms, 1.0, 1e-9);
  EXPECT_TRUE(cost.steady);
}

TEST(Measure, ColdAndWarmCostsAreCachedApart) {
  ScriptedBackend b({2.0, 2.0, 2.0, 2.0, 1.0, 1.0});
  quarry::testing::ScratchDir dir;
  CostCache cache(dir.file("costs.tsv"));
  EXPECT_NEAR(cached_measure(cache, b, kRelu, cold()), 2.0, 1e-9);
  EXPECT_FALSE(cache.find(relu_key()).has_value());
  MeasureOptions warm{0, 2, 1, 1, false};
  EXPECT_NEAR(cached_measure(cache, b, kRelu, warm), 1.0, 1e-9);
  const CostCache again(dir.file("costs.tsv"));
  EXPECT_NEAR(*again.find(CostCache::key("scripted", "script", kRelu, true)),
              2.0, 1e-9);
  EXPECT_NEAR(*again.find(relu_key()), 1.0, 1e-9);
  EXPECT_TRUE(CostCache::key("scripted", "script", kRelu, true)
                  .ends_with(kRelu.key() + " cold-weights"));
}

TEST(Measure, WeightsOutgrowTheCacheWhenTheirBytesExceedIt) {
  auto graph = [](int columns) {
    return parse_graph("input x: [1,10]\nweight w: [10," +
                       std::to_string(columns) + "]\nweight b: [1," +
                       std::to_string(columns) +
                       "]\ny = ewadd(matmul(x, w), b)\noutput y\n");
  };
  // 10 x 25 + 25 floats: 1100 bytes; the input's 40 do not count.
  const ScriptedBackend kib({}, 1024);
  EXPECT_TRUE(weights_outgrow_cache(kib, graph(25)));
  EXPECT_FALSE(weights_outgrow_cache(kib, graph(23))); // 1012 bytes
  // A backend that models no cache never measures cold.
  EXPECT_FALSE(weights_outgrow_cache(ScriptedBackend({}), graph(1000)));
}

} // namespace
} // namespace quarry::runtime
