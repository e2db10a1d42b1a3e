//===- streams_test.cc - Waves, streams, waits and buffers that never meet ===//
#include "quarry/runtime/streams.h"

#include "cases.h"
#include "quarry/core/random.h"
#include "quarry/core/text.h"
#include "quarry/models/zoo.h"
#include "quarry/runtime/reference_backend.h"
#include "quarry/runtime/run_inputs.h"
#include "stream_check.h"

#include <gtest/gtest.h>

#include <map>
#include <random>

namespace quarry::runtime {
namespace {

struct Planned {
  Graph g;
  Plan p;
  std::vector<ScheduledStep> schedule;
};

Planned planned(const std::string &text) {
  Planned r{parse_graph(text), {}, {}};
  r.p = make_plan(r.g, random_float_bindings(r.g, 1), "test",
                  [](OpKind) { return true; });
  r.schedule = node_schedule(r.g, r.p);
  return r;
}

// x -> a; a -> b, c (independent); d = b + c.
const std::string kDiamond = "input x: [4,4]\n"
                             "a = relu(x)\nb = sigmoid(a)\nc = tanh(a)\n"
                             "d = ewadd(b, c)\noutput d\n";

TEST(Streams, IndependentStepsOfAWaveTakeTheirOwnStreams) {
  const Planned d = planned(kDiamond);
  const StreamPlan s = assign_streams(d.schedule, 0);
  ASSERT_EQ(s.stream_of.size(), 4u);
  EXPECT_EQ(s.wave_of, (std::vector<int>{0, 1, 1, 2}));
  EXPECT_EQ(s.waves, 3);
  EXPECT_EQ(s.widest_wave, 2);
  EXPECT_EQ(s.streams, 2);
  // b follows a on its stream; c on the other waits for a; d waits for
  // whichever of b and c is not on its stream.
  EXPECT_EQ(s.stream_of[0], s.stream_of[1]);
  EXPECT_NE(s.stream_of[1], s.stream_of[2]);
  EXPECT_EQ(s.waits[2], (std::vector<int>{0}));
  EXPECT_EQ(s.waits[3].size(), 1u);
  EXPECT_TRUE(s.signals[0]);
  // b and c may run at once; everything happens before d.
  EXPECT_FALSE(s.happens_before(1, 2));
  EXPECT_FALSE(s.happens_before(2, 1));
  for (int a : {0, 1, 2})
    EXPECT_TRUE(s.happens_before(a, 3)) << a;
  EXPECT_TRUE(s.happens_before(-1, 0)); // the inputs come first
}

TEST(Streams, OneStreamIsTheScheduleInOrder) {
  const Planned d = planned(kDiamond);
  const StreamPlan s = assign_streams(d.schedule, 1);
  EXPECT_EQ(s.streams, 1);
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(s.stream_of[i], 0);
    EXPECT_TRUE(s.waits[i].empty());
    for (int j = i + 1; j < 4; ++j)
      EXPECT_TRUE(s.happens_before(i, j));
  }
}

TEST(Streams, AChainNeedsOneStreamWhateverIsAllowed) {
  const Planned c = planned("input x: [4,4]\ny = relu(tanh(sigmoid(x)))\n"
                            "output y\n");
  const StreamPlan s = assign_streams(c.schedule, 4);
  EXPECT_EQ(s.streams, 1);
  EXPECT_EQ(s.waves, 3);
}

TEST(Streams, AWaveWiderThanTheStreamsShares) {
  // Four independent relus of x on two streams.
  const Planned w = planned("input x: [4,4]\n"
                            "a = relu(x)\nb = sigmoid(x)\nc = tanh(x)\n"
                            "e = relu(x)\nf = ewadd(ewadd(a, b), ewadd(c, e))"
                            "\noutput f\n");
  const StreamPlan s = assign_streams(w.schedule, 2);
  EXPECT_EQ(s.streams, 2);
  std::map<int, int> per_stream;
  for (int i = 0; i < 4; ++i)
    ++per_stream[s.stream_of[i]];
  EXPECT_EQ(per_stream[0], 2);
  EXPECT_EQ(per_stream[1], 2);
}

TEST(Streams, SeveralStreamsIssueInWaves) {
  // The graph lists one branch whole, then the other; on two streams they
  // are issued wave by wave, so neither stream holds a later step before
  // an earlier one.
  const Planned b = planned("input x: [4,4]\na1 = relu(x)\na2 = relu(a1)\n"
                            "b1 = sigmoid(x)\nb2 = sigmoid(b1)\n"
                            "y = ewadd(a2, b2)\noutput y\n");
  const StreamPlan one = assign_streams(b.schedule, 1);
  EXPECT_EQ(one.order, (std::vector<int>{0, 1, 2, 3, 4}));
  const StreamPlan two = assign_streams(b.schedule, 2);
  EXPECT_EQ(two.order, (std::vector<int>{0, 2, 1, 3, 4}));
  EXPECT_EQ(two.stream_of[0], two.stream_of[1]);
  EXPECT_EQ(two.stream_of[2], two.stream_of[3]);
  EXPECT_NE(two.stream_of[0], two.stream_of[2]);
  EXPECT_TRUE(two.happens_before(2, 3));
  EXPECT_FALSE(two.happens_before(1, 2));
  EXPECT_FALSE(two.happens_before(2, 1));
}

TEST(HappensBefore, IsTransitiveOverManyWords) {
  HappensBefore hb(200);
  hb.add_step(0, {});
  for (int s = 1; s < 200; ++s)
    hb.add_step(s, {s - 1}); // a chain longer than one word of bits
  EXPECT_EQ(hb.steps(), 200);
  EXPECT_TRUE(hb(0, 199));
  EXPECT_TRUE(hb(70, 130));
  EXPECT_FALSE(hb(130, 70));
  EXPECT_FALSE(hb(5, 5));
}

/// Random DAGs of pointwise steps: wherever two values share a buffer,
/// everything that touched the first happens before the second is written.
TEST(Streams, BuffersPassOnlyAlongHappensBefore) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 40; ++trial) {
    std::string text = "input x: [8,8]\n";
    const int n = 6 + static_cast<int>(rng() % 30);
    std::vector<std::string> names{"x"};
    for (int i = 0; i < n; ++i) {
      const std::string a = names[rng() % names.size()];
      const std::string b = names[rng() % names.size()];
      const std::string v = "v" + std::to_string(i);
      text += v + " = " +
              (rng() % 2 ? "ewadd(" + a + ", " + b + ")" : "relu(" + a + ")") +
              "\n";
      names.push_back(v);
    }
    text += "output " + names.back() + "\n";
    Planned g = planned(text);
    for (int streams : {1, 2, 3, 0}) {
      const StreamPlan s = assign_streams(g.schedule, streams);
      assign_buffers(g.g, g.p, g.schedule, &s.happens_before);
      // Who wrote and read each value, by step.
      std::map<ValueRef, int> writer;
      std::map<ValueRef, std::vector<int>> readers;
      for (size_t i = 0; i < g.schedule.size(); ++i) {
        for (ValueRef v : g.schedule[i].writes)
          writer[v] = static_cast<int>(i);
        for (ValueRef v : g.schedule[i].reads)
          readers[v].push_back(static_cast<int>(i));
      }
      for (const auto &[v, w] : writer)
        for (const auto &[u, x] : writer) {
          if (x <= w || g.p.value(v).buffer != g.p.value(u).buffer)
            continue;
          // u took v's buffer at step x.
          EXPECT_TRUE(s.happens_before(w, x)) << text;
          for (int r : readers[v])
            EXPECT_TRUE(s.happens_before(r, x))
                << "step " << r << " reads a buffer step " << x
                << " writes, at once on " << streams << " streams\n"
                << text;
        }
    }
  }
}

/// The multi-stream plan checked on host threads against the reference
/// backend, whose semantics its steps are: the same bits on every output.
void expect_check_bitwise(const Graph &g, const Bindings<float> &weights,
                          const std::string &name) {
  SCOPED_TRACE(name);
  auto reference = make_reference_backend();
  auto one = make_stream_check(g, weights, 1, "test");
  auto many = make_stream_check(g, weights, 0, "test");
  for (uint64_t seed : {2, 3}) {
    Bindings<float> inputs = random_run_inputs(g, seed);
    for (const auto &[n, t] : weights)
      inputs.insert_or_assign(n, t);
    const auto want = run_once(*reference->prepare(g, inputs), inputs);
    for (Executable *e : {one.get(), many.get()}) {
      SCOPED_TRACE(e->steps()[0].label + ", inputs " + std::to_string(seed));
      testing::expect_bitwise_equal(run_once(*e, inputs), want);
    }
  }
}

TEST(StreamCheck, GraphCasesBitwiseAsTheReference) {
  for (const testing::Case &c : testing::graph_cases()) {
    const Graph g = parse_graph(c.text, c.name);
    expect_check_bitwise(g, random_run_bindings(g, 1), c.name);
  }
}

TEST(StreamCheck, TheSixNetworksBitwiseAsTheReference) {
  // Small sizes: every step is reference code.
  const std::map<std::string, int64_t> sizes = {
      {"resnet50", 8}, {"resnext50", 32}, {"nasnet_a", 8},
      {"nasrnn", 2},   {"bert", 8},       {"inception_v3", 75}};
  for (const ModelInfo &m : model_list()) {
    ModelOptions o;
    o.size = sizes.at(std::string(m.name));
    const Model model = build_model(m.name, o);
    expect_check_bitwise(model.graph, model.weights, std::string(m.name));
  }
}

TEST(StreamCheck, RunsEachStreamOnAThreadOfItsOwn) {
  const Planned d = planned(kDiamond);
  auto e = make_stream_check(d.g, {}, 0, "test");
  run_once(*e, random_run_inputs(d.g, 1));
  EXPECT_EQ(e->steps()[0].label,
            "plan check (4 steps on 2 threads, one per stream, in 3 waves)");
}

} // namespace
} // namespace quarry::runtime
