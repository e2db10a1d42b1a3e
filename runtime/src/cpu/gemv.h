//===- gemv.h - A row vector times a static matrix -------------*- C++ -*-===//
//
// matmul with one row ([1,k] x [k,n], static weights) reads every weight
// once and does two flops per float read: its speed is the memory's. oneDNN
// 2.x's kernels reach about two thirds of the bandwidth a plain streaming
// loop reaches on such problems (bench/ort_vs_quarry on nasrnn), so the cpu
// backend runs them here: the weights are packed once into panels of
// columns, each read front to back with its sums in registers, each thread
// streaming its own panels, and the epilogue (fusion.h) is applied to the
// finished columns.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kernels.h"

#include <optional>

namespace quarry::runtime::cpu {

/// Whether a matmul of these operands runs as a gemv: a single row and a
/// static 2-D weight.
bool gemv_applies(CpuOperands in);

/// The gemv step, with the post-ops `post` (operands after the weight);
/// the weights are packed into `c.statics`.
Lowered gemv_lowered(Context &c, CpuOperands in, ResultTypes out, PostOps post);

/// A convolution whose window covers its whole unpadded input once, for
/// one image (a linear layer written as a convolution: a squeeze-
/// excitation's 1x1 on 1x1, a face network's global depthwise 7x7 on 7x7):
/// without groups a gemv of the flattened input by the transposed weights,
/// depthwise one dot product per channel. oneDNN runs these through a
/// gemm-based kernel several times slower. nullopt where it does not apply
/// (the weights must be static).
std::optional<Lowered> point_conv_lowered(Context &c, const Node &n,
                                          CpuOperands in, ResultTypes out,
                                          PostOps post);

} // namespace quarry::runtime::cpu
