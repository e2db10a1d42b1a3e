//===- implementations.h - How an operator runs, as a rewrite --*- C++ -*-===//
//
// A backend may run an operator more than one way (oneDNN's Winograd or
// direct convolution); Backend::implementations says which, as the node's
// attributes with the way named (a conv2d's `alg`). The search weighs such
// a choice as it weighs a rule: one splice that replaces the node by
// itself with the way named, priced by the cost model (a chosen way is
// measured with the reorders into and out of the layout it takes), so
// that substitutions and choices are searched together and the winner's
// choices travel with its graph. Rules leave `alg` open, so a chosen node
// is still matched; what a rule writes runs the default way again.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/rewrite/pattern_match.h"
#include "quarry/rewrite/splice.h"

#include <functional>
#include <string>
#include <vector>

namespace quarry::rewrite {

/// The other ways to run node `id` of a typed graph, each as its attributes
/// (Backend::implementations); empty where there is no choice.
using ImplementationsFn =
    std::function<std::vector<Attrs>(const Graph &, int32_t)>;

/// One splice per node and way `offers` names, in node order.
std::vector<OwnedSplice>
propose_implementations(const HostInfo &host, const ImplementationsFn &offers);

/// The nodes of `g` that name how they run (a conv2d's `alg`, its
/// `layout`), as "name: conv2d alg=winograd layout=nChw16c", in node
/// order: what a report lists.
std::vector<std::string> chosen_implementations(const Graph &g);

/// The name the search's transformation of choices goes by.
inline constexpr std::string_view kImplementationsName = "implementation";

} // namespace quarry::rewrite
