//===- dnnl_util.h - Small helpers over the oneDNN C++ API -----*- C++ -*-===//
//
// The cpu backend keeps every activation in plain row-major (NCHW) layout,
// so tensors move between operators without reorders; only weights are
// reordered, once, into the layout a convolution prefers.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/core/attrs.h"
#include "quarry/core/domain.h"

#include <oneapi/dnnl/dnnl.hpp>

#include <functional>
#include <unordered_map>
#include <utility>

namespace quarry::runtime::cpu {

using dims = dnnl::memory::dims;
using Args = std::unordered_map<int, dnnl::memory>;

/// The shape as oneDNN dims; a scalar is one element.
inline dims to_dims(const Shape &s) {
  if (s.rank() == 0)
    return {1};
  return dims(s.dims.begin(), s.dims.end());
}

/// Row-major float32 memory of these dimensions.
inline dnnl::memory::desc plain_md(const dims &d) {
  dims strides(d.size(), 1);
  for (int i = static_cast<int>(d.size()) - 2; i >= 0; --i)
    strides[i] = strides[i + 1] * d[i + 1];
  return dnnl::memory::desc(d, dnnl::memory::data_type::f32, strides);
}
inline dnnl::memory::desc plain_md(const Shape &s) {
  return plain_md(to_dims(s));
}

/// oneDNN's elementwise algorithm for a nonlinear function.
inline dnnl::algorithm eltwise_algorithm(UnaryFn f) {
  switch (f) {
  case UnaryFn::Relu:
    return dnnl::algorithm::eltwise_relu;
  case UnaryFn::Sigmoid:
    return dnnl::algorithm::eltwise_logistic;
  case UnaryFn::Tanh:
    return dnnl::algorithm::eltwise_tanh;
  case UnaryFn::InvSqrt:
    break;
  }
  return dnnl::algorithm::eltwise_pow; // x^-0.5 with alpha 1, beta -0.5
}

/// Attributes fusing `act` into a convolution or matmul as a post-op.
inline dnnl::primitive_attr activation_attr(Activation act) {
  dnnl::primitive_attr attr;
  static constexpr UnaryFn kFn[] = {UnaryFn::Relu, UnaryFn::Relu,
                                    UnaryFn::Sigmoid, UnaryFn::Tanh};
  if (act != Activation::None) {
    dnnl::post_ops ops;
    ops.append_eltwise(1.0f, eltwise_algorithm(kFn[static_cast<int>(act)]),
                       0.0f, 0.0f);
    attr.set_post_ops(ops);
  }
  return attr;
}

/// Padding after the input along one axis, so that oneDNN's output size
/// (in - k + before + after) / stride + 1 equals quarry's. A window never
/// needs negative padding: floor division drops the unused tail.
inline int64_t pad_after(int64_t in, int64_t k, int64_t stride, int64_t out,
                         int64_t before) {
  return std::max<int64_t>(0, (out - 1) * stride + k - in - before);
}

} // namespace quarry::runtime::cpu
