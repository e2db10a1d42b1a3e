//===- run_inputs.h - Seeded values for running a whole graph --*- C++ -*-===//
//
// Random values in [-1, 1) for every variable (core/random.h), except that
// a batchnorm's variance must be positive for the result to be a number:
// those get |v| + 0.5.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/core/evaluate.h"

namespace quarry::runtime {

Bindings<float> random_run_bindings(const Graph &g, uint64_t seed);

/// random_run_bindings' values of the graph's inputs alone, for a graph
/// whose weights are at hand (a network's weights are most of its memory).
Bindings<float> random_run_inputs(const Graph &g, uint64_t seed);

/// Replaces dimension 0 of every `input` variable with `batch` and infers
/// the graph again (weights keep their shapes). Throws quarry::Error when an
/// operator does not accept the new shapes.
Graph with_batch(const Graph &g, int64_t batch);

/// Per output, the largest |a - ref| divided by the largest |ref| (so it
/// reads as a relative error at the output's scale); the maximum over
/// outputs. Throws when the outputs' count or shapes differ.
double max_relative_error(const std::vector<Tensor<float>> &a,
                          const std::vector<Tensor<float>> &ref);

} // namespace quarry::runtime
