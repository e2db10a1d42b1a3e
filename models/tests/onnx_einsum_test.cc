//===- onnx_einsum_test.cc - Einsum against its definition ----------------===//
//
// Each equation imports as transposes, sums and products; the result is
// compared with Einsum's definition evaluated term by term (every
// assignment of the labels, summed over those the output lacks).
//
//===----------------------------------------------------------------------===//
#include "onnx_builder.h"

#include "quarry/core/evaluate.h"
#include "quarry/core/float_domain.h"
#include "quarry/core/weights.h"
#include "quarry/models/onnx.h"
#include "quarry/testing/error_of.h"

#include <gtest/gtest.h>

#include <cmath>
#include <map>

namespace quarry {
namespace {

using namespace quarry::testing;

/// Einsum by its definition, for equations without ellipses and with an
/// explicit output.
Tensor<float> by_definition(const std::string &equation,
                            const std::vector<Tensor<float>> &in) {
  const size_t arrow = equation.find("->");
  std::vector<std::string> terms;
  std::string term;
  for (char c : equation.substr(0, arrow)) {
    if (c == ',') {
      terms.push_back(term);
      term.clear();
    } else {
      term += c;
    }
  }
  terms.push_back(term);
  const std::string out = equation.substr(arrow + 2);
  std::map<char, int64_t> extent;
  for (size_t i = 0; i < terms.size(); ++i)
    for (size_t k = 0; k < terms[i].size(); ++k)
      extent[terms[i][k]] = in[i].shape[static_cast<int>(k)];
  std::vector<char> labels;
  for (const auto &[l, e] : extent)
    labels.push_back(l);
  Shape os;
  for (char c : out)
    os.dims.push_back(extent.at(c));
  Tensor<float> y(os, 0.0f);
  std::map<char, int64_t> at;
  for (char l : labels)
    at[l] = 0;
  auto index = [&](const std::string &t, const Shape &s) {
    int64_t i = 0;
    for (size_t k = 0; k < t.size(); ++k)
      i = i * s[static_cast<int>(k)] + at[t[k]];
    return i;
  };
  while (true) {
    double p = 1;
    for (size_t i = 0; i < terms.size(); ++i)
      p *= in[i][index(terms[i], in[i].shape)];
    y[index(out, os)] += static_cast<float>(p);
    size_t k = 0;
    for (; k < labels.size(); ++k) {
      if (++at[labels[k]] < extent[labels[k]])
        break;
      at[labels[k]] = 0;
    }
    if (k == labels.size())
      break;
  }
  return y;
}

struct Case {
  std::string equation;
  std::vector<Ints> shapes;
};
void PrintTo(const Case &c, std::ostream *os) { *os << c.equation; }

class EinsumCase : public ::testing::TestWithParam<Case> {};

TEST_P(EinsumCase, EqualsItsDefinition) {
  const Case &c = GetParam();
  OnnxModel m(12);
  std::vector<std::string> names;
  for (size_t i = 0; i < c.shapes.size(); ++i) {
    names.push_back("x" + std::to_string(i));
    m.input(names.back(), c.shapes[i]);
  }
  m.output("y");
  set_string(m.node("Einsum", names, {"y"}), "equation", c.equation);
  const Model g = import_onnx_bytes(m.bytes(), "einsum.onnx");
  EXPECT_TRUE(kept_operator_types(g).empty());
  const Bindings<float> b = bind_variables(g.graph, g.weights, 4);
  std::vector<Tensor<float>> in;
  for (const auto &n : names)
    in.push_back(b.at(n));
  const Tensor<float> got = evaluate(FloatDomain{}, g.graph, b).at(0);
  const Tensor<float> want = by_definition(c.equation, in);
  ASSERT_EQ(got.shape, want.shape);
  for (int64_t i = 0; i < want.numel(); ++i)
    EXPECT_NEAR(got[i], want[i], 1e-5 * (1 + std::fabs(want[i]))) << i;
}

INSTANTIATE_TEST_SUITE_P(
    Equations, EinsumCase,
    ::testing::Values(Case{"ij,jk->ik", {{2, 3}, {3, 4}}},
                      Case{"bij,bjk->bik", {{2, 2, 3}, {2, 3, 4}}},
                      Case{"bhqd,bhkd->bhqk", {{1, 2, 3, 4}, {1, 2, 5, 4}}},
                      Case{"bhqk,bhkd->bqhd", {{2, 2, 3, 5}, {2, 2, 5, 4}}},
                      Case{"ij->ji", {{2, 3}}}, Case{"ijk->", {{2, 3, 2}}},
                      Case{"ij->i", {{2, 3}}}, Case{"i,i->", {{5}, {5}}},
                      Case{"i,j->ij", {{2}, {3}}},
                      Case{"abc,cd,de->abe", {{2, 2, 3}, {3, 4}, {4, 2}}},
                      Case{"nchw,oc->nohw", {{1, 3, 2, 2}, {4, 3}}},
                      Case{"ab,cb,ab->ac", {{2, 3}, {4, 3}, {2, 3}}},
                      // Diagonals: a label twice (or three times) in a term.
                      Case{"ii->i", {{3, 3}}}, Case{"ii->", {{4, 4}}},
                      Case{"bii->bi", {{2, 3, 3}}},
                      Case{"iji->ji", {{3, 2, 3}}}, Case{"iii->i", {{2, 2, 2}}},
                      Case{"ii,ij->j", {{3, 3}, {3, 2}}}),
    [](const auto &info) {
      std::string name;
      for (char c : info.param.equation)
        name += std::isalpha(static_cast<unsigned char>(c)) ? c : '_';
      return name;
    });

TEST(Einsum, EllipsisAndImplicitOutputFollowNumpy) {
  // "...ij,...jk" is "...ik" (implicit: the ellipsis, then labels used
  // once in order), the same as its explicit batched form.
  auto import_eq = [](const std::string &eq, Ints a, Ints b) {
    OnnxModel m(12);
    m.input("x0", a).input("x1", b).output("y");
    set_string(m.node("Einsum", {"x0", "x1"}, {"y"}), "equation", eq);
    return import_onnx_bytes(m.bytes(), "e.onnx");
  };
  const Model implicit = import_eq("...ij,...jk", {2, 2, 3}, {2, 3, 4});
  const Model expl = import_eq("bij,bjk->bik", {2, 2, 3}, {2, 3, 4});
  const auto run = [](const Model &g) {
    return evaluate(FloatDomain{}, g.graph,
                    bind_variables(g.graph, g.weights, 6))
        .at(0);
  };
  const Tensor<float> a = run(implicit), b = run(expl);
  EXPECT_EQ(a.shape, (Shape{2, 2, 4}));
  EXPECT_EQ(a.data, b.data);
}

TEST(Einsum, WhatItCannotSayIsKeptSayingWhy) {
  // The node stays ONNX (ONNX's inference types it); running the model
  // says why.
  auto why = [](const std::string &eq, Ints a, Ints b) {
    OnnxModel m(12);
    m.input("x0", a).input("x1", b).output("y");
    set_string(m.node("Einsum", {"x0", "x1"}, {"y"}), "equation", eq);
    return unrunnable_reason(import_onnx_bytes(m.bytes(), "e.onnx"));
  };
  EXPECT_EQ(why("ij,jk->ikk", {2, 3}, {3, 2}),
            "node 'Einsum_y' (Einsum) is kept from the imported model as it "
            "is (the output names a label twice; the shapes of its outputs "
            "are not fixed); quarry cannot run it");
  EXPECT_EQ(why("ij,jk->ik", {2, 3}, {1, 2}),
            "node 'Einsum_y' (Einsum) is kept from the imported model as it "
            "is (a label has extents 3 and 1 (broadcasting is not "
            "supported); the shapes of its outputs are not fixed); quarry "
            "cannot run it");
}

} // namespace
} // namespace quarry
