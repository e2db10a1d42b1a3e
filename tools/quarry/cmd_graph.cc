//===- cmd_graph.cc - quarry graph show|eval|compare ----------------------===//
#include "commands.h"

#include "quarry/core/float_domain.h"
#include "quarry/core/random.h"
#include "quarry/core/text.h"
#include "quarry/field/random_field.h"
#include "quarry/field/tensor_hash.h"
#include "quarry/models/model_file.h"
#include "quarry/models/onnx.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>

namespace quarry::cli {

namespace {

struct GraphOptions {
  std::string file, other;
  bool types = false;
  std::string domain = "float";
  uint64_t seed = 1;
  int max_values = 8;
};

void print_tensor(const std::string &label, const Tensor<float> &t,
                  int max_values) {
  std::printf("%s %s:", label.c_str(), t.shape.str().c_str());
  const int64_t n = std::min<int64_t>(t.numel(), max_values);
  for (int64_t i = 0; i < n; ++i)
    std::printf(" %.6g", t[i]);
  std::printf("%s\n", t.numel() > n ? " ..." : "");
}

void show(const GraphOptions &o) {
  Graph g = read_graph_file(o.file);
  std::fputs(print_graph(g, {.types = o.types}).c_str(), stdout);
}

void eval(const GraphOptions &o) {
  // A model imported with nodes kept as ONNX: the algebra alone does not
  // compute it, and the message names the node, as quarry run's does.
  const Model m = load_graph_any(o.file);
  if (const std::string why = unrunnable_reason(m); !why.empty())
    throw Error(o.file + ": " + why +
                "; graph eval evaluates the algebra alone (quarry run runs "
                "the model in stages)");
  const Graph &g = m.graph;
  if (o.domain == "float") {
    auto out = evaluate(FloatDomain{}, g, random_float_bindings(g, o.seed));
    for (size_t i = 0; i < out.size(); ++i)
      print_tensor("output " + std::to_string(i), out[i], o.max_values);
  } else {
    auto out =
        evaluate(PrimeField(o.seed), g, random_field_bindings(g, o.seed));
    for (size_t i = 0; i < out.size(); ++i)
      std::printf("output %zu %s: field hash %016llx\n", i,
                  out[i].shape.str().c_str(),
                  static_cast<unsigned long long>(hash_tensor(out[i])));
  }
}

/// Evaluates two graphs over the same variables on the same random inputs,
/// exactly in the field and in float; exits 1 when they differ.
void compare(const GraphOptions &o) {
  Graph a = read_graph_file(o.file);
  Graph b = read_graph_file(o.other);
  auto fa = evaluate(PrimeField(o.seed), a, random_field_bindings(a, o.seed));
  auto fb = evaluate(PrimeField(o.seed), b, random_field_bindings(a, o.seed));
  auto ra = evaluate(FloatDomain{}, a, random_float_bindings(a, o.seed));
  auto rb = evaluate(FloatDomain{}, b, random_float_bindings(a, o.seed));
  if (fa.size() != fb.size())
    throw Error("compare: " + o.file + " has " + std::to_string(fa.size()) +
                " outputs, " + o.other + " has " + std::to_string(fb.size()));
  bool equal = true;
  for (size_t i = 0; i < fa.size(); ++i) {
    const bool same = fa[i] == fb[i];
    double diff = 0;
    if (ra[i].shape == rb[i].shape)
      for (int64_t k = 0; k < ra[i].numel(); ++k)
        diff = std::max(diff, std::fabs(double(ra[i][k]) - double(rb[i][k])));
    std::printf("output %zu: field %s, float max |diff| %.3g\n", i,
                same ? "equal" : "DIFFERENT", diff);
    equal = equal && same;
  }
  std::printf("%s\n", equal ? "equivalent on this input" : "not equivalent");
  if (!equal)
    throw Error("compare: graphs differ");
}

} // namespace

void register_graph_command(CLI::App &app) {
  auto o = std::make_shared<GraphOptions>();
  CLI::App *graph =
      app.add_subcommand("graph", "Read, print and evaluate text graphs");
  graph->require_subcommand(1);

  CLI::App *s = graph->add_subcommand("show", "Parse a graph and print it");
  s->add_option("FILE", o->file, "Graph in the text form")->required();
  s->add_flag("--types", o->types, "Show each value's inferred shape");
  s->callback([o] { show(*o); });

  CLI::App *e =
      graph->add_subcommand("eval", "Evaluate a graph on seeded random inputs");
  e->add_option("FILE", o->file, "Graph in the text form")->required();
  e->add_option("--domain", o->domain, "float or field (exact, mod 2^61-1)")
      ->check(CLI::IsMember({"float", "field"}));
  e->add_option("--seed", o->seed, "Random input seed");
  e->add_option("--max-values", o->max_values, "Values printed per output")
      ->check(CLI::NonNegativeNumber);
  e->callback([o] { eval(*o); });

  CLI::App *c = graph->add_subcommand(
      "compare", "Evaluate two graphs on the same random inputs");
  c->add_option("A", o->file, "First graph")->required();
  c->add_option("B", o->other, "Second graph")->required();
  c->add_option("--seed", o->seed, "Random input seed");
  c->callback([o] { compare(*o); });
}

} // namespace quarry::cli
