//===- float_eval_helpers.h - Shared helpers of the float tests -*- C++ -*-===//
#pragma once

#include "quarry/core/evaluate.h"
#include "quarry/core/float_domain.h"
#include "quarry/core/text.h"

#include <gtest/gtest.h>

namespace quarry::testing {

using T = Tensor<float>;

/// Evaluates the single output of `text` with the given bindings.
inline T run(const std::string &text, Bindings<float> in) {
  return evaluate(FloatDomain{}, parse_graph(text), in).at(0);
}

inline void expect_values(const T &t, Shape shape, std::vector<float> values) {
  EXPECT_EQ(t.shape, shape);
  ASSERT_EQ(t.data.size(), values.size());
  for (size_t i = 0; i < values.size(); ++i)
    EXPECT_NEAR(t.data[i], values[i], 1e-5) << "element " << i;
}

} // namespace quarry::testing
