//===- kernels_float_only.cc - Imported networks' operators on cuda -------===//
//
// The float-only operators of ONNX import (core/ops/float_only.h): softmax
// through cuDNN, the rest through quarry's own kernels (device_kernels.h),
// which also carry broadcasting arithmetic for every function and shape, and
// where.
//
//===----------------------------------------------------------------------===//
#include "device_kernels.h"
#include "kernels.h"

#include "quarry/core/op_registry.h"

#include <string>

namespace quarry::runtime::cuda {

namespace {

/// Rejects a rank this backend's kernels do not index.
void check_rank(const Node &n, int rank) {
  if (rank > kMaxRank)
    throw Error("backend cuda: " + std::string(op_name(n.kind)) + " of rank " +
                std::to_string(rank) + ": this backend's kernels index up to " +
                std::to_string(kMaxRank) + " dimensions");
}

/// A walk over `out` whose operand 0 reads through `strides` from `offset`.
Walk walk_of(const Shape &out, const std::vector<int64_t> &strides,
             int64_t offset = 0) {
  Walk w;
  w.rank = out.rank();
  for (int d = 0; d < w.rank; ++d) {
    w.dims[d] = out[d];
    w.stride[0][d] = strides[d];
  }
  w.offset[0] = offset;
  return w;
}

} // namespace

Step CudaKernel<ops::Broadcast>::make(Context &c, const Node &n, Operands in,
                                      Operands out) {
  const auto fn = static_cast<ops::BroadcastFn>(n.attrs.i(ops::Broadcast::kFn));
  const Shape &r = out[0].shape();
  check_rank(n, r.rank());
  Walk w = walk_of(r, ops::broadcast_strides(in[0].shape(), r));
  const auto sb = ops::broadcast_strides(in[1].shape(), r);
  for (int d = 0; d < r.rank(); ++d)
    w.stride[1][d] = sb[d];
  return [&c, fn, w, a = in[0].data, b = in[1].data, y = out[0].data] {
    launch_broadcast(c.stream, fn, a, b, y, w);
  };
}

Step CudaKernel<ops::Where>::make(Context &c, const Node &n, Operands in,
                                  Operands out) {
  const Shape &r = out[0].shape();
  check_rank(n, r.rank());
  Walk w;
  w.rank = r.rank();
  for (int k = 0; k < 3; ++k) {
    const auto strides = ops::broadcast_strides(in[k].shape(), r);
    for (int d = 0; d < w.rank; ++d) {
      w.dims[d] = r[d];
      w.stride[k][d] = strides[d];
    }
  }
  return [&c, w, cond = in[0].data, a = in[1].data, b = in[2].data,
          y = out[0].data] { launch_where(c.stream, cond, a, b, y, w); };
}

Step CudaKernel<ops::Pointwise>::make(Context &c, const Node &n, Operands in,
                                      Operands out) {
  using P = ops::Pointwise;
  const auto fn = static_cast<ops::PointwiseFn>(n.attrs.i(P::kFn));
  const float alpha = static_cast<float>(n.attrs.real(P::kAlpha));
  const float beta = static_cast<float>(n.attrs.real(P::kBeta));
  return [&c, fn, alpha, beta, x = in[0].data, y = out[0].data,
          len = in[0].shape().numel()] {
    launch_pointwise(c.stream, fn, alpha, beta, x, y, len);
  };
}

Step CudaKernel<ops::Softmax>::make(Context &c, const Node &n, Operands in,
                                    Operands out) {
  // cuDNN's channel mode: softmax over C of (outer, C, inner, 1).
  const Shape &x = in[0].shape();
  const int axis =
      ops::normalize_axis("softmax", n.attrs.i(ops::Softmax::kAxis), x.rank());
  const ops::AxisBlocks b(x, axis);
  cudnnTensorDescriptor_t raw = nullptr;
  QUARRY_CUDA_CHECK(cudnnCreateTensorDescriptor(&raw));
  std::shared_ptr<cudnnTensorStruct> d(raw, cudnnDestroyTensorDescriptor);
  QUARRY_CUDA_CHECK(cudnnSetTensor4dDescriptor(
      raw, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, static_cast<int>(b.outer),
      static_cast<int>(x[axis]), static_cast<int>(b.inner), 1));
  return [&c, d, xp = in[0].data, y = out[0].data] {
    const float one = 1.0f, zero = 0.0f;
    QUARRY_CUDA_CHECK(cudnnSoftmaxForward(c.cudnn, CUDNN_SOFTMAX_ACCURATE,
                                          CUDNN_SOFTMAX_MODE_CHANNEL, &one,
                                          d.get(), xp, &zero, d.get(), y));
  };
}

Step CudaKernel<ops::Slice>::make(Context &c, const Node &n, Operands in,
                                  Operands out) {
  const Shape &x = in[0].shape();
  check_rank(n, x.rank());
  const auto plan = ops::Slice::plan(n.attrs, x);
  const Walk w = walk_of(out[0].shape(), plan.strides(x), plan.offset(x));
  return [&c, w, xp = in[0].data, y = out[0].data] {
    launch_gather(c.stream, xp, y, w);
  };
}

Step CudaKernel<ops::Pad>::make(Context &c, const Node &n, Operands in,
                                Operands out) {
  const Shape &x = in[0].shape(), &r = out[0].shape();
  check_rank(n, x.rank());
  const auto &pads = n.attrs.list(ops::Pad::kPads);
  PadGeometry g;
  g.rank = x.rank();
  for (int d = 0; d < g.rank; ++d) {
    g.in[d] = x[d];
    g.out[d] = r[d];
    g.before[d] = pads[d];
  }
  g.mode = static_cast<ops::PadMode>(n.attrs.i(ops::Pad::kMode));
  g.value = static_cast<float>(n.attrs.real(ops::Pad::kValue));
  return [&c, g, xp = in[0].data, y = out[0].data] {
    launch_pad(c.stream, xp, y, g);
  };
}

namespace {

/// A reduction of in[0] over `axes` into out[0].
Step reduction_step(Context &c, const Node &n, ops::ReduceFn fn, bool mean,
                    const std::vector<int64_t> &axes, Operands in,
                    Operands out) {
  const Shape &x = in[0].shape();
  check_rank(n, x.rank());
  const auto reduced = ops::reduced_axes(op_name(n.kind), axes, x.rank());
  const auto xs = x.strides();
  ReduceGeometry g;
  for (int d = 0; d < x.rank(); ++d) {
    Walk &w = reduced[d] ? g.reduced : g.kept;
    w.dims[w.rank] = x[d];
    w.stride[0][w.rank] = xs[d];
    ++w.rank;
  }
  return [&c, fn, mean, g, xp = in[0].data, y = out[0].data] {
    launch_reduce(c.stream, fn, mean, xp, y, g);
  };
}

} // namespace

Step CudaKernel<ops::ReduceMean>::make(Context &c, const Node &n, Operands in,
                                       Operands out) {
  return reduction_step(c, n, ops::ReduceFn::Sum, true,
                        n.attrs.list(ops::ReduceMean::kAxes), in, out);
}

Step CudaKernel<ops::Reduce>::make(Context &c, const Node &n, Operands in,
                                   Operands out) {
  return reduction_step(c, n,
                        static_cast<ops::ReduceFn>(n.attrs.i(ops::Reduce::kFn)),
                        false, n.attrs.list(ops::Reduce::kAxes), in, out);
}

Step CudaKernel<ops::Pool2DExplicit>::make(Context &c, const Node &n,
                                           Operands in, Operands out) {
  using P = ops::Pool2DExplicit;
  return explicit_pool(c, in, out, n.attrs.list(P::kKernel),
                       n.attrs.list(P::kStride), n.attrs.list(P::kPads),
                       n.attrs.i(P::kFn) == 1, n.attrs.i(P::kCountPad) != 0,
                       n.attrs.list(P::kDilation));
}

Step CudaKernel<ops::ConvTranspose>::make(Context &c, const Node &n,
                                          Operands in, Operands out) {
  using CT = ops::ConvTranspose;
  const Shape &x = in[0].shape(), &w = in[1].shape(), &y = out[0].shape();
  const auto &s = n.attrs.list(CT::kStride);
  const auto &p = n.attrs.list(CT::kPads);
  ConvTransposeGeometry g;
  g.n = x[0];
  g.c = x[1];
  g.h = x[2];
  g.w = x[3];
  g.co = y[1];
  g.oh = y[2];
  g.ow = y[3];
  g.groups = n.attrs.i(CT::kGroups);
  g.kh = w[2];
  g.kw = w[3];
  g.sh = s[0];
  g.sw = s[1];
  g.top = p[0];
  g.left = p[1];
  return [&c, g, xp = in[0].data, wp = in[1].data, yp = out[0].data] {
    launch_conv_transpose(c.stream, xp, wp, yp, g);
  };
}

Step CudaKernel<ops::LayerNorm>::make(Context &c, const Node &n, Operands in,
                                      Operands out) {
  const auto [rows, row] = ops::LayerNorm::rows(n.attrs, in[0].shape());
  const double eps = n.attrs.real(ops::LayerNorm::kEps);
  return [&c, rows, row, eps, x = in[0].data, scale = in[1].data,
          bias = in.size() > 2 ? in[2].data : nullptr, y = out[0].data] {
    launch_layer_norm(c.stream, x, scale, bias, y, rows, row, eps);
  };
}

} // namespace quarry::runtime::cuda
