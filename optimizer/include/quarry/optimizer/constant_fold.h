//===- constant_fold.h - Folding weight-only subgraphs into weights -*- C++
//-*-===//
//
// After the search, what is computed from weights and constants alone (a
// concat of two kernels a merged convolution reads, an enlarged kernel, a
// constant) is computed once in float and stored as a new weight, as TASO's
// preprocessing step does before it runs the graph. The result has no
// operator left whose operands are all static.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/core/model.h"

namespace quarry::opt {

/// Every weight of `m.graph` gets a value: the table's, else the seeded
/// random value the runtime would bind (runtime/run_inputs.h).
Model complete_weights(const Model &m, uint64_t seed);

/// `m` with each static operator value used by a running operator (or as
/// an output) replaced by a weight "folded_<k>" holding its value. The
/// table must hold every weight (complete_weights). Takes `m` by value:
/// a caller done with it moves it in, and its weights are not copied.
Model fold_constants(Model m);

} // namespace quarry::opt
