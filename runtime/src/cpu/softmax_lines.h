//===- softmax_lines.h - Softmax where oneDNN's is slow ---------*- C++ -*-===//
//
// oneDNN 2.6's softmax vectorizes along its axis when the axis is
// innermost and runs its reference code otherwise. So a short innermost
// axis (a detector's two class scores per anchor) leaves most lanes idle,
// and any other axis is scalar code. Here the tensor is seen as
// [outer, n, inner] with the axis in the middle: a loop subtracts each
// line's maximum (vectorized along `inner` where it is more than 1), one
// oneDNN exp runs over the whole tensor at full vector width, and a second
// loop multiplies by the reciprocal of each line's sum. The result equals
// the reference's exp(x - max) / sum up to the exp's rounding and that
// reciprocal's.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kernels.h"

namespace quarry::runtime::cpu {

/// Innermost axes at most this long take the lines kernel.
constexpr int64_t kShortSoftmaxAxis = 8;

/// Softmax of a plain tensor of shape `x` along `axis`, line by line.
Lowered softmax_lines(Context &c, const Shape &x, int axis);

} // namespace quarry::runtime::cpu
