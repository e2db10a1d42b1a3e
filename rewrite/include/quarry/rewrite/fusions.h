//===- fusions.h - Hand-written rewrites TASO also uses --------*- C++ -*-===//
//
// Next to its generated rules TASO applies a few rewrites written by hand;
// quarry's, each a splice (splice.h) with a small pattern built here:
//   fuse_activation   conv2d/matmul with act=none whose only user is
//                     relu/sigmoid/tanh becomes one operator with `act` set.
//   merge_conv        two convolutions with equal parameters, weights
//                     static: on the same input (ungrouped, kernels equal
//                     but for their output channels)
//                       split(conv2d(x, concat[axis=0](w1, w2)));
//                     on two inputs of equal shape with equal kernel
//                     shapes, one grouped convolution
//                       split(conv2d(concat[axis=1](x1, x2),
//                                    concat[axis=0](w1, w2)))
//                     (twice the groups: each half of the output channels
//                     reads its own half of the input channels).
// Constant folding runs after the search (constant_fold.h). Batchnorm is
// not folded into convolutions: quarry's conv2d has no bias operand, so the
// shift would stay as an addition costing what the batchnorm costs.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/rewrite/pattern_match.h"
#include "quarry/rewrite/splice.h"

#include <span>
#include <string_view>
#include <vector>

namespace quarry::rewrite {

/// A fusion proposes its splices in a fixed order; splice() may still
/// refuse one (a shape or a cycle).
struct Fusion {
  std::string_view name;
  std::vector<OwnedSplice> (*propose)(const HostInfo &);
};

std::span<const Fusion> fusions();

std::vector<OwnedSplice> propose_fuse_activation(const HostInfo &host);
std::vector<OwnedSplice> propose_merge_conv(const HostInfo &host);
/// The graphs the proposals make (those splice() does not refuse).
std::vector<Graph> fuse_activation(const HostInfo &host);
std::vector<Graph> merge_conv(const HostInfo &host);

/// How many later convolutions each one is paired with by merge_conv: the
/// nearest ones in node order, which keeps the candidates per step linear
/// in the graph's size.
inline constexpr int kMergeConvPartners = 3;

} // namespace quarry::rewrite
