//===- eval_bench.cc - Graph evaluation speed per domain ------------------===//
//
// Times evaluate() on small graphs of the sizes the generator fingerprints
// (TASO's 2x4 activations, 4x4 matrices, 2x4x5x5 images) in FloatDomain and
// PrimeField. Prints JSON: per graph and domain, the median nanoseconds per
// evaluation over --repeats runs of --iters evaluations.
//
//   build/bin/eval_bench [--iters N] [--repeats R]
//
//===----------------------------------------------------------------------===//
#include "bench_cli.h"
#include "provenance.h"

#include "quarry/core/float_domain.h"
#include "quarry/core/text.h"
#include "quarry/core/timed_in_turn.h"
#include "quarry/field/random_field.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

namespace {

struct Case {
  const char *name;
  const char *text;
};

const Case kCases[] = {
    {"matmul_chain", "input x: [2,4]\ninput a: [4,4]\ninput b: [4,4]\n"
                     "y = matmul(matmul(x, a), b)\noutput y"},
    {"ewadd_relu", "input x: [2,4]\ninput y: [2,4]\n"
                   "r = relu(ewadd(x, y))\noutput r"},
    {"conv3x3_concat",
     "input x: [2,4,5,5]\nweight w1: [4,4,3,3]\nweight w2: [4,4,3,3]\n"
     "y = conv2d[act=relu](x, concat[axis=0](w1, w2))\noutput y"},
    {"split_concat", "input x: [2,4]\ninput y: [2,4]\n"
                     "a, b = split[axis=1](concat[axis=1](x, y))\noutput a, b"},
    {"pool_avg", "input x: [2,4,5,5]\n"
                 "y = pool2d_avg[k=3,3](x)\noutput y"},
};

/// A timer of `iters` calls of `run`, in nanoseconds per call.
template <class F> std::function<double()> per_call_ns(F run, int iters) {
  return [run, iters] {
    return quarry::time_ms([&] {
             for (int i = 0; i < iters; ++i)
               run();
           }) *
           1e6 / iters;
  };
}

} // namespace

int main(int argc, char **argv) {
  int iters = 2000, repeats = 5;
  CLI::App app{"Graph evaluation speed per domain, as JSON", "eval_bench"};
  quarry::bench::flag_defaults(app);
  app.add_option("--iters", iters, "Evaluations per timed run (at least 1)");
  app.add_option("--repeats", repeats,
                 "Timed runs, of which the median counts (at least 1)");
  quarry::bench::parse_or_exit(app, argc, argv);
  iters = std::max(1, iters);
  repeats = std::max(1, repeats);
  nlohmann::json out = quarry::bench::provenance(argc, argv);
  out["benchmark"] = "eval";
  out["iters"] = iters;
  out["repeats"] = repeats;
  for (const Case &c : kCases) {
    const quarry::Graph g = quarry::parse_graph(c.text, c.name);
    const auto fin = quarry::random_float_bindings(g, 1);
    const auto pin = quarry::random_field_bindings(g, 1);
    const quarry::FloatDomain fd;
    const quarry::PrimeField pf(1);
    size_t sink = 0;
    // Both domains in turn, round after round (timed_in_turn.h).
    quarry::TurnPolicy policy;
    policy.rounds = repeats;
    const auto ns = quarry::time_in_turn(
        {per_call_ns([&] { sink += quarry::evaluate(fd, g, fin).size(); },
                     iters),
         per_call_ns([&] { sink += quarry::evaluate(pf, g, pin).size(); },
                     iters)},
        policy);
    const double float_ns = quarry::median(ns[0]),
                 field_ns = quarry::median(ns[1]);
    out["graphs"].push_back({{"name", c.name},
                             {"operators", g.num_operators()},
                             {"float_ns_per_eval", float_ns},
                             {"field_ns_per_eval", field_ns},
                             {"outputs_checked", sink > 0}});
  }
  std::printf("%s\n", out.dump(2).c_str());
  return 0;
}
