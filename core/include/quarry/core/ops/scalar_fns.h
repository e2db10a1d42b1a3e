//===- ops/scalar_fns.h - Float operators' semantics, host and device -*- C++
//-*-===//
//
// What the float-only operators compute per element, per window or per
// reduced value, written once so that the reference (core/src/float_ops)
// and the cuda backend's kernels compute the same function: the functions
// of pointwise, broadcast and reduce (with reduce's start, step, combine
// and finish), pad's source index per axis and average pooling's divisor.
// Every function is QUARRY_FLOAT_FN: __host__ __device__ under nvcc, plain
// inline elsewhere. Only C math functions (sqrtf, expf, ..., exp, log on
// doubles) are used, which both the C library and CUDA provide; min and
// max are written out as std::min/std::max define them.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <math.h>

#include <cstdint>
#include <string_view>

#if defined(__CUDACC__)
#define QUARRY_FLOAT_FN __host__ __device__ inline
#else
#define QUARRY_FLOAT_FN inline
#endif

namespace quarry::ops {

/// pointwise's functions (ops/pointwise.h says what each computes).
enum class PointwiseFn : int64_t {
  Sqrt,
  Exp,
  Neg,
  Abs,
  Erf,
  Reciprocal,
  LeakyRelu,
  Clip,
  HardSigmoid,
  HardSwish,
  Log,
  Floor,
  Ceil,
  Round,
  Sign,
  Sin,
  Cos,
  Tan,
  Asin,
  Acos,
  Atan,
  Sinh,
  Cosh,
  Asinh,
  Acosh,
  Atanh,
  Softplus,
  Softsign,
  Elu,
  Selu,
  Celu,
  ThresholdedRelu,
  Shrink,
  Gelu,
  Silu
};

inline constexpr std::string_view kPointwiseNames[] = {
    "sqrt",         "exp",        "neg",        "abs",
    "erf",          "reciprocal", "leaky_relu", "clip",
    "hard_sigmoid", "hard_swish", "log",        "floor",
    "ceil",         "round",      "sign",       "sin",
    "cos",          "tan",        "asin",       "acos",
    "atan",         "sinh",       "cosh",       "asinh",
    "acosh",        "atanh",      "softplus",   "softsign",
    "elu",          "selu",       "celu",       "thresholded_relu",
    "shrink",       "gelu",       "silu"};

/// broadcast's functions: arithmetic, then comparisons, which give 1 where
/// they hold and 0 elsewhere (ONNX's booleans as float32).
enum class BroadcastFn : int64_t {
  Add,
  Sub,
  Mul,
  Div,
  Pow,
  Max,
  Min,
  Eq,
  Ne,
  Lt,
  Le,
  Gt,
  Ge
};
inline constexpr std::string_view kBroadcastNames[] = {
    "add", "sub", "mul", "div", "pow", "max", "min",
    "eq",  "ne",  "lt",  "le",  "gt",  "ge"};

/// Whether fn compares (its result is 0 or 1).
inline constexpr bool is_comparison(BroadcastFn fn) {
  return fn >= BroadcastFn::Eq;
}

/// reduce's functions (ops/reduce.h says what each computes).
enum class ReduceFn : int64_t {
  Sum,
  Max,
  Min,
  Prod,
  L1,
  L2,
  SumSquare,
  LogSum,
  LogSumExp
};
inline constexpr std::string_view kReduceNames[] = {
    "sum", "max",        "min",     "prod",       "l1",
    "l2",  "sum_square", "log_sum", "log_sum_exp"};

/// pad's modes (ops/pad.h).
enum class PadMode : int64_t { Constant, Reflect, Edge };
inline constexpr std::string_view kPadModeNames[] = {"constant", "reflect",
                                                     "edge"};

/// std::max(a, b) and std::min(a, b), which device code cannot call.
QUARRY_FLOAT_FN float float_max(float a, float b) { return a < b ? b : a; }
QUARRY_FLOAT_FN float float_min(float a, float b) { return b < a ? b : a; }

/// pointwise[fn alpha beta] of one element.
QUARRY_FLOAT_FN float pointwise_value(PointwiseFn fn, float alpha, float beta,
                                      float v) {
  using F = PointwiseFn;
  switch (fn) {
  case F::Sqrt:
    return sqrtf(v);
  case F::Exp:
    return expf(v);
  case F::Neg:
    return -v;
  case F::Abs:
    return fabsf(v);
  case F::Erf:
    return erff(v);
  case F::Reciprocal:
    return 1.0f / v;
  case F::LeakyRelu:
    return v >= 0.0f ? v : alpha * v;
  case F::Clip:
    return float_min(float_max(v, alpha), beta);
  case F::HardSigmoid:
    return float_max(0.0f, float_min(1.0f, alpha * v + beta));
  case F::HardSwish:
    return v * float_max(0.0f, float_min(1.0f, v / 6.0f + 0.5f));
  case F::Log:
    return logf(v);
  case F::Floor:
    return floorf(v);
  case F::Ceil:
    return ceilf(v);
  case F::Round:
    return nearbyintf(v); // the default rounding mode: halves to even
  case F::Sign:
    return v > 0.0f ? 1.0f : v < 0.0f ? -1.0f : 0.0f;
  case F::Sin:
    return sinf(v);
  case F::Cos:
    return cosf(v);
  case F::Tan:
    return tanf(v);
  case F::Asin:
    return asinf(v);
  case F::Acos:
    return acosf(v);
  case F::Atan:
    return atanf(v);
  case F::Sinh:
    return sinhf(v);
  case F::Cosh:
    return coshf(v);
  case F::Asinh:
    return asinhf(v);
  case F::Acosh:
    return acoshf(v);
  case F::Atanh:
    return atanhf(v);
  case F::Softplus:
    return log1pf(expf(v));
  case F::Softsign:
    return v / (1.0f + fabsf(v));
  case F::Elu:
    return v > 0.0f ? v : alpha * expm1f(v);
  case F::Selu:
    return beta * (v > 0.0f ? v : alpha * expm1f(v));
  case F::Celu:
    return float_max(0.0f, v) + float_min(0.0f, alpha * expm1f(v / alpha));
  case F::ThresholdedRelu:
    return v > alpha ? v : 0.0f;
  case F::Shrink:
    return v < -alpha ? v + beta : v > alpha ? v - beta : 0.0f;
  case F::Gelu:
    return 0.5f * v * (1.0f + erff(v * 0.70710678118654752f));
  case F::Silu:
    return v / (1.0f + expf(-v));
  }
  return v;
}

/// broadcast[fn](x, y) of one pair of elements.
QUARRY_FLOAT_FN float broadcast_value(BroadcastFn fn, float x, float y) {
  switch (fn) {
  case BroadcastFn::Add:
    return x + y;
  case BroadcastFn::Sub:
    return x - y;
  case BroadcastFn::Mul:
    return x * y;
  case BroadcastFn::Div:
    return x / y;
  case BroadcastFn::Pow:
    return powf(x, y);
  case BroadcastFn::Max:
    return float_max(x, y);
  case BroadcastFn::Min:
    return float_min(x, y);
  case BroadcastFn::Eq:
    return x == y ? 1.0f : 0.0f;
  case BroadcastFn::Ne:
    return x != y ? 1.0f : 0.0f;
  case BroadcastFn::Lt:
    return x < y ? 1.0f : 0.0f;
  case BroadcastFn::Le:
    return x <= y ? 1.0f : 0.0f;
  case BroadcastFn::Gt:
    return x > y ? 1.0f : 0.0f;
  case BroadcastFn::Ge:
    return x >= y ? 1.0f : 0.0f;
  }
  return x;
}

/// reduce[fn]'s accumulator before any element (in double, as the
/// reduction accumulates). log_sum_exp accumulates e^(x - top), top being
/// the largest element, found first.
QUARRY_FLOAT_FN double reduce_start(ReduceFn fn) {
  return fn == ReduceFn::Prod  ? 1.0
         : fn == ReduceFn::Max ? -HUGE_VAL
         : fn == ReduceFn::Min ? HUGE_VAL
                               : 0.0;
}

/// The accumulator after element `v`.
QUARRY_FLOAT_FN double reduce_step(ReduceFn fn, double acc, double v,
                                   double top) {
  switch (fn) {
  case ReduceFn::Max:
    return acc < v ? v : acc;
  case ReduceFn::Min:
    return v < acc ? v : acc;
  case ReduceFn::Prod:
    return acc * v;
  case ReduceFn::L1:
    return acc + fabs(v);
  case ReduceFn::L2:
  case ReduceFn::SumSquare:
    return acc + v * v;
  case ReduceFn::LogSumExp:
    return acc + exp(v - top);
  case ReduceFn::Sum:
  case ReduceFn::LogSum:
    break;
  }
  return acc + v;
}

/// Two accumulators of disjoint parts of the same reduction as one.
QUARRY_FLOAT_FN double reduce_combine(ReduceFn fn, double a, double b) {
  switch (fn) {
  case ReduceFn::Max:
    return a < b ? b : a;
  case ReduceFn::Min:
    return b < a ? b : a;
  case ReduceFn::Prod:
    return a * b;
  default:
    return a + b;
  }
}

/// The result from the whole accumulator.
QUARRY_FLOAT_FN double reduce_finish(ReduceFn fn, double acc, double top) {
  switch (fn) {
  case ReduceFn::L2:
    return sqrt(acc);
  case ReduceFn::LogSum:
    return log(acc);
  case ReduceFn::LogSumExp:
    return top + log(acc);
  default:
    return acc;
  }
}

/// The input index that output index `j - before` of an axis of extent
/// `n` reads when padded in `mode` (reflect mirrors without repeating the
/// edge, at most n - 1 past it; edge repeats the edge), or -1 where the
/// constant fills it.
QUARRY_FLOAT_FN int64_t pad_source(PadMode mode, int64_t j, int64_t n) {
  if (j >= 0 && j < n)
    return j;
  switch (mode) {
  case PadMode::Edge:
    return j < 0 ? 0 : n - 1;
  case PadMode::Reflect:
    return j < 0 ? -j : 2 * (n - 1) - j;
  case PadMode::Constant:
    break;
  }
  return -1;
}

/// Keys' cubic convolution kernel at distance d >= 0 with parameter a
/// (resize's cubic mode, grid_sample's bicubic with a = -0.75).
QUARRY_FLOAT_FN double cubic_weight(double d, double a) {
  if (d <= 1)
    return ((a + 2) * d - (a + 3)) * d * d + 1;
  if (d < 2)
    return ((a * d - 5 * a) * d + 8 * a) * d - 4 * a;
  return 0;
}

/// What average pooling divides a window's sum by: with `count_pad`, the
/// window clipped to the padded input (it starts at y0, x0 and the padded
/// input ends at padded_h, padded_w, ONNX counting pads only), else the
/// `inside` elements of the input it covered (0 for a window wholly in
/// the padding, whose average is then 0).
QUARRY_FLOAT_FN int64_t pool_avg_divisor(bool count_pad, int64_t inside,
                                         int64_t y0, int64_t x0, int64_t kh,
                                         int64_t kw, int64_t padded_h,
                                         int64_t padded_w) {
  if (!count_pad)
    return inside;
  const int64_t y1 = y0 + kh < padded_h ? y0 + kh : padded_h;
  const int64_t x1 = x0 + kw < padded_w ? x0 + kw : padded_w;
  return (y1 - y0) * (x1 - x0);
}

} // namespace quarry::ops
