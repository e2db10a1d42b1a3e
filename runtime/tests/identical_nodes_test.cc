//===- identical_nodes_test.cc - Duplicates found, merged, run once -------===//
#include "identical_nodes.h"

#include "quarry/core/text.h"
#include "quarry/runtime/cpu_backend.h"
#include "quarry/runtime/reference_backend.h"
#include "quarry/runtime/run_inputs.h"

#include <gtest/gtest.h>

namespace quarry::runtime {
namespace {

/// The nodes of `text` that have an earlier identical one, as "name=first".
std::vector<std::string> duplicates(const std::string &text) {
  const Graph g = parse_graph(text, "dups");
  const std::vector<int32_t> first = first_identical(g);
  std::vector<std::string> out;
  for (int32_t id = 0; id < g.num_nodes(); ++id)
    if (first[id] != id)
      out.push_back(g.node(id).name + "=" + g.node(first[id]).name);
  return out;
}

using Names = std::vector<std::string>;

TEST(IdenticalNodes, SameKindAttributesAndOperandsAreOneComputation) {
  const std::string head = "input x: [1,4,6,6]\nweight w: [4,4,1,1]\n"
                           "weight v: [4,4,1,1]\n";
  // Readers of duplicates are duplicates in turn.
  EXPECT_EQ(duplicates(head + "p = pool2d_avg[k=3,3 s=1,1 pad=same](x)\n"
                              "q = pool2d_avg[k=3,3 s=1,1 pad=same](x)\n"
                              "a = relu(p)\nb = relu(q)\n"
                              "y = ewadd(a, b)\noutput y\n"),
            (Names{"q=p", "b=a"}));
  // Other attributes, other operands, operands in another order: none.
  EXPECT_EQ(duplicates(head + "p = pool2d_avg[k=3,3 s=1,1 pad=same](x)\n"
                              "q = pool2d_avg[k=3,3 s=2,2 pad=same](x)\n"
                              "c = conv2d(x, w)\nd = conv2d(x, v)\n"
                              "e = ewadd(c, d)\nf = ewadd(d, c)\n"
                              "output p, q, e, f\n"),
            Names{});
  // Variables are names, not computations: two weights of one shape stay
  // two. An operator kept without semantics is never merged.
  EXPECT_EQ(duplicates(head + "c = conv2d(x, w)\nd = conv2d(x, v)\n"
                              "k = opaque[id=0 shapes=4,1,4,6,6 types=1](x)\n"
                              "l = opaque[id=0 shapes=4,1,4,6,6 types=1](x)\n"
                              "output c, d, k, l\n"),
            Names{});
  // Each result of a node of several results.
  EXPECT_EQ(duplicates(head + "a, b = split[axis=1 sizes=2,2](x)\n"
                              "c, d = split[axis=1 sizes=2,2](x)\n"
                              "y = ewadd(a, d)\nz = ewadd(c, b)\n"
                              "output y, z\n"),
            (Names{"c,d=a,b", "z=y"}));
}

TEST(IdenticalNodes, MergingLeavesDuplicatesDeadAndKeepsIdsAndOutputs) {
  const Graph g = parse_graph("input x: [1,4,6,6]\n"
                              "p = pool2d_avg[k=3,3 s=1,1 pad=same](x)\n"
                              "q = pool2d_avg[k=3,3 s=1,1 pad=same](x)\n"
                              "y = ewadd(p, q)\nz = tanh(q)\n"
                              "output y, q, z\n",
                              "dups");
  const Graph m = with_identical_merged(g);
  ASSERT_EQ(m.num_nodes(), g.num_nodes());
  for (int32_t id = 0; id < g.num_nodes(); ++id) {
    EXPECT_EQ(m.node(id).kind, g.node(id).kind);
    EXPECT_EQ(m.node(id).name, g.node(id).name);
  }
  const int32_t p = g.outputs()[0].node - 2, q = p + 1;
  ASSERT_EQ(g.node(p).name, "p");
  ASSERT_EQ(g.node(q).name, "q");
  const std::vector<bool> live = m.live_nodes();
  EXPECT_TRUE(live[p]);
  EXPECT_FALSE(live[q]);
  // The output that was q is read from p, in its place.
  ASSERT_EQ(m.outputs().size(), 3u);
  EXPECT_EQ(m.outputs()[1], (ValueRef{p, 0}));
  // A graph without duplicates is returned as it is.
  const Graph none = parse_graph("input x: [2]\ny = relu(x)\noutput y\n", "n");
  EXPECT_TRUE(structurally_equal(with_identical_merged(none), none));
}

TEST(IdenticalNodes, TheCpuBackendRunsADuplicateOnceAndAgreesWithReference) {
  // NASNet-A's normal cell: a pool of one input twice, summed; one of the
  // two pools is also an output.
  const Graph g = parse_graph("input x: [1,8,6,6]\nweight w: [8,8,1,1]\n"
                              "c = conv2d[act=relu](x, w)\n"
                              "p = pool2d_avg[k=3,3 s=1,1 pad=same](c)\n"
                              "q = pool2d_avg[k=3,3 s=1,1 pad=same](c)\n"
                              "y = ewadd(q, p)\noutput y, q\n",
                              "cell");
  const Bindings<float> values = random_run_bindings(g, 5);
  auto e = make_cpu_backend(BackendOptions{})->prepare(g, values);
  int pools = 0;
  for (const StepInfo &s : e->steps())
    pools += s.label.find("pool2d_avg") != std::string::npos;
  EXPECT_EQ(pools, 1);
  const std::vector<Tensor<float>> got = run_once(*e, values);
  const std::vector<Tensor<float>> want =
      run_once(*make_reference_backend()->prepare(g, values), values);
  ASSERT_EQ(got.size(), 2u);
  EXPECT_LE(max_relative_error(got, want), 1e-5);
}

} // namespace
} // namespace quarry::runtime
