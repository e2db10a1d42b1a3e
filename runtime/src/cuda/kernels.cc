//===- kernels.cc - cuda operators lowered to cuDNN, cuBLAS, CUDA copies --===//
//
// Descriptors and algorithm choices are made once in make(); each step only
// enqueues work on the context's stream. cuDNN's legacy (v7-style) API
// takes symmetric padding, which quarry's windows have for odd kernels and
// for pad=valid; even pools with pad=same run on quarry's own pooling
// kernel, and an even convolution with pad=same is rejected at prepare
// time.
// Math is plain FP32 (no TF32) unless the context allows tf32, so results
// stay within float tolerance of the reference.
//
//===----------------------------------------------------------------------===//
#include "kernels.h"

#include "device_kernels.h"
#include "quarry/core/op_registry.h"

#include <algorithm>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace quarry::runtime::cuda {

namespace {

using TensorDesc = std::shared_ptr<cudnnTensorStruct>;

constexpr float kOne = 1.0f, kZero = 0.0f;

TensorDesc new_tensor_desc() {
  cudnnTensorDescriptor_t d = nullptr;
  QUARRY_CUDA_CHECK(cudnnCreateTensorDescriptor(&d));
  return TensorDesc(d, cudnnDestroyTensorDescriptor);
}

int to_int(int64_t v) { return static_cast<int>(v); }

TensorDesc nchw(int64_t n, int64_t c, int64_t h, int64_t w) {
  TensorDesc d = new_tensor_desc();
  QUARRY_CUDA_CHECK(
      cudnnSetTensor4dDescriptor(d.get(), CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT,
                                 to_int(n), to_int(c), to_int(h), to_int(w)));
  return d;
}

/// Any tensor seen as one row of elements (elementwise operations).
TensorDesc flat(const Shape &s) { return nchw(1, 1, 1, s.numel()); }

/// An N-d view with explicit strides (cuDNN wants at least 4 dimensions).
TensorDesc strided(std::vector<int> dims, std::vector<int> strides) {
  while (dims.size() < 4) {
    strides.insert(strides.begin(), dims.empty() ? 1 : dims[0] * strides[0]);
    dims.insert(dims.begin(), 1);
  }
  TensorDesc d = new_tensor_desc();
  QUARRY_CUDA_CHECK(cudnnSetTensorNdDescriptor(d.get(), CUDNN_DATA_FLOAT,
                                               static_cast<int>(dims.size()),
                                               dims.data(), strides.data()));
  return d;
}

std::shared_ptr<cudnnActivationStruct> activation(cudnnActivationMode_t m) {
  cudnnActivationDescriptor_t d = nullptr;
  QUARRY_CUDA_CHECK(cudnnCreateActivationDescriptor(&d));
  std::shared_ptr<cudnnActivationStruct> owned(
      d, cudnnDestroyActivationDescriptor);
  QUARRY_CUDA_CHECK(
      cudnnSetActivationDescriptor(d, m, CUDNN_NOT_PROPAGATE_NAN, 0.0));
  return owned;
}

/// In-place activation of `data` (a fused act), or nothing for none.
Step activation_step(Context &c, Activation act, const Shape &s, float *data) {
  if (act == Activation::None)
    return [] {};
  static constexpr cudnnActivationMode_t kMode[] = {
      CUDNN_ACTIVATION_IDENTITY, CUDNN_ACTIVATION_RELU,
      CUDNN_ACTIVATION_SIGMOID, CUDNN_ACTIVATION_TANH};
  auto a = activation(kMode[static_cast<int>(act)]);
  auto d = flat(s);
  return [&c, a, d, data] {
    QUARRY_CUDA_CHECK(cudnnActivationForward(c.cudnn, a.get(), &kOne, d.get(),
                                             data, &kZero, d.get(), data));
  };
}

Step sequence(Step first, Step second) {
  return [first = std::move(first), second = std::move(second)] {
    first();
    second();
  };
}

Step unary_step(Context &c, cudnnActivationMode_t mode, Operands in,
                Operands out) {
  auto a = activation(mode);
  auto d = flat(in[0].shape());
  return [&c, a, d, x = in[0].data, y = out[0].data] {
    QUARRY_CUDA_CHECK(cudnnActivationForward(c.cudnn, a.get(), &kOne, d.get(),
                                             x, &kZero, d.get(), y));
  };
}

std::shared_ptr<cudnnOpTensorStruct> op_tensor(cudnnOpTensorOp_t op) {
  cudnnOpTensorDescriptor_t raw = nullptr;
  QUARRY_CUDA_CHECK(cudnnCreateOpTensorDescriptor(&raw));
  std::shared_ptr<cudnnOpTensorStruct> desc(raw,
                                            cudnnDestroyOpTensorDescriptor);
  QUARRY_CUDA_CHECK(cudnnSetOpTensorDescriptor(raw, op, CUDNN_DATA_FLOAT,
                                               CUDNN_NOT_PROPAGATE_NAN));
  return desc;
}

Step binary_step(Context &c, cudnnOpTensorOp_t op, Operands in, Operands out) {
  auto desc = op_tensor(op);
  auto d = flat(in[0].shape());
  return [&c, desc, d, a = in[0].data, b = in[1].data, y = out[0].data] {
    QUARRY_CUDA_CHECK(cudnnOpTensor(c.cudnn, desc.get(), &kOne, d.get(), a,
                                    &kOne, d.get(), b, &kZero, d.get(), y));
  };
}

/// The padding after the input that a window needs on one axis.
int64_t pad_after(int64_t in, int64_t k, int64_t stride, const ops::Window &w) {
  return std::max<int64_t>(0, (w.out - 1) * stride + k - in - w.pad_before);
}

/// Whether cuDNN's symmetric padding (`before` on both sides) gives the
/// window's output on one axis.
bool pads_symmetrically(int64_t in, int64_t k, int64_t stride,
                        const ops::Window &w) {
  return pad_after(in, k, stride, w) <= w.pad_before &&
         (in + 2 * w.pad_before - k) / stride + 1 == w.out;
}

/// Symmetric padding for one axis, or an error naming the node.
int symmetric_pad(const Node &n, int64_t in, int64_t k, int64_t stride,
                  const ops::Window &w) {
  if (!pads_symmetrically(in, k, stride, w))
    throw Error("backend cuda: " + std::string(op_name(n.kind)) + ": kernel " +
                std::to_string(k) +
                " needs asymmetric padding, which this backend does not do");
  return to_int(w.pad_before);
}

/// cuDNN's pooling where its symmetric padding fits; quarry's own kernel
/// (device_kernels.h) where the window pads one side more, as `same` does
/// for even kernels. Both skip padding for max and divide by the whole
/// window for avg, as the algebra's pool2d does.
template <class Def>
Step pool_step(Context &c, const Node &n, cudnnPoolingMode_t mode, Operands in,
               Operands out) {
  const Shape &x = in[0].shape(), &y = out[0].shape();
  const auto [wy, wx] = Def::windows(n.attrs, x);
  const auto &k = n.attrs.list(Def::kKernel);
  const auto &s = n.attrs.list(Def::kStride);
  if (!pads_symmetrically(x[2], k[0], s[0], wy) ||
      !pads_symmetrically(x[3], k[1], s[1], wx))
    return explicit_pool(c, in, out, k, s,
                         {wy.pad_before, wx.pad_before,
                          pad_after(x[2], k[0], s[0], wy),
                          pad_after(x[3], k[1], s[1], wx)},
                         mode == CUDNN_POOLING_MAX, true);
  cudnnPoolingDescriptor_t raw = nullptr;
  QUARRY_CUDA_CHECK(cudnnCreatePoolingDescriptor(&raw));
  std::shared_ptr<cudnnPoolingStruct> pool(raw, cudnnDestroyPoolingDescriptor);
  QUARRY_CUDA_CHECK(cudnnSetPooling2dDescriptor(
      raw, mode, CUDNN_NOT_PROPAGATE_NAN, to_int(k[0]), to_int(k[1]),
      to_int(wy.pad_before), to_int(wx.pad_before), to_int(s[0]),
      to_int(s[1])));
  auto xd = nchw(x[0], x[1], x[2], x[3]);
  auto yd = nchw(y[0], y[1], y[2], y[3]);
  return [&c, pool, xd, yd, xp = in[0].data, yp = out[0].data] {
    QUARRY_CUDA_CHECK(cudnnPoolingForward(c.cudnn, pool.get(), &kOne, xd.get(),
                                          xp, &kZero, yd.get(), yp));
  };
}

} // namespace

Step explicit_pool(Context &c, Operands in, Operands out,
                   const std::vector<int64_t> &k, const std::vector<int64_t> &s,
                   const std::vector<int64_t> &pads, bool max, bool count_pad,
                   const std::vector<int64_t> &dilation) {
  const Shape &x = in[0].shape(), &y = out[0].shape();
  PoolGeometry g;
  g.planes = x[0] * x[1];
  g.h = x[2];
  g.w = x[3];
  g.oh = y[2];
  g.ow = y[3];
  g.kh = k[0];
  g.kw = k[1];
  g.dh = dilation[0];
  g.dw = dilation[1];
  g.sh = s[0];
  g.sw = s[1];
  g.top = pads[0];
  g.left = pads[1];
  g.bottom = pads[2];
  g.right = pads[3];
  g.max = max;
  g.count_pad = count_pad;
  return [&c, g, xp = in[0].data, yp = out[0].data] {
    launch_pool2d(c.stream, xp, yp, g);
  };
}

namespace {

/// Copies `outer` rows of `width` floats between pitched layouts.
void copy_rows(Context &c, float *dst, int64_t dst_pitch, const float *src,
               int64_t src_pitch, int64_t width, int64_t outer) {
  QUARRY_CUDA_CHECK(cudaMemcpy2DAsync(
      dst, sizeof(float) * dst_pitch, src, sizeof(float) * src_pitch,
      sizeof(float) * width, outer, cudaMemcpyDeviceToDevice, c.stream));
}

} // namespace

namespace {

using FilterDesc = std::shared_ptr<cudnnFilterStruct>;
using ConvDesc = std::shared_ptr<cudnnConvolutionStruct>;

/// A convolution's descriptors and the fastest algorithm for it.
struct ConvSetup {
  TensorDesc xd, yd;
  FilterDesc wd;
  ConvDesc cd;
  cudnnConvolutionFwdAlgo_t algo{};
  size_t bytes = 0;
};

/// The fastest algorithm that works for the convolution: every algorithm
/// timed on the first configuration of its kind (TASO does the same), the
/// choice then kept for the process. So a configuration runs the same
/// algorithm in every graph it appears in, and graphs that differ only in
/// how their steps are issued (one stream or several) compute bitwise the
/// same results. cuDNN times each algorithm once per search, and kernels of
/// a few microseconds vary between launches by more than algorithms differ,
/// so the search runs kFindRounds times and the algorithm of the smallest
/// median time wins.
cudnnConvolutionFwdAlgo_t fastest_algorithm(Context &c, const ConvSetup &cs,
                                            const std::string &key) {
  constexpr int kFindRounds = 3;
  static std::mutex mu;
  static std::map<std::string, cudnnConvolutionFwdAlgo_t> chosen;
  const std::lock_guard<std::mutex> lock(mu);
  if (auto it = chosen.find(key); it != chosen.end())
    return it->second;
  std::map<cudnnConvolutionFwdAlgo_t, std::vector<float>> times;
  for (int round = 0; round < kFindRounds; ++round) {
    cudnnConvolutionFwdAlgoPerf_t perf[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
    int found = 0;
    QUARRY_CUDA_CHECK(cudnnFindConvolutionForwardAlgorithm(
        c.cudnn, cs.xd.get(), cs.wd.get(), cs.cd.get(), cs.yd.get(),
        CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &found, perf));
    for (int i = 0; i < found; ++i)
      if (perf[i].status == CUDNN_STATUS_SUCCESS)
        times[perf[i].algo].push_back(perf[i].time);
  }
  // An algorithm that failed in some round is as good as absent: only
  // those that ran every round compete.
  bool any = false;
  cudnnConvolutionFwdAlgo_t best{};
  float best_ms = 0;
  for (auto &[algo, ms] : times) {
    if (ms.size() != kFindRounds)
      continue;
    std::nth_element(ms.begin(), ms.begin() + kFindRounds / 2, ms.end());
    const float median = ms[kFindRounds / 2];
    if (!any || median < best_ms) {
      any = true;
      best = algo;
      best_ms = median;
    }
  }
  if (!any)
    throw Error("backend cuda: cudnnFindConvolutionForwardAlgorithm found no "
                "algorithm for this convolution");
  return chosen[key] = best;
}

ConvSetup conv_setup(Context &c, const Node &n, Operands in) {
  using Conv = ops::Conv2D;
  const auto g = Conv::geometry(n.attrs, in[0].shape(), in[1].shape());
  const auto &s = n.attrs.list(Conv::kStride);
  ConvSetup cs;
  cs.xd = nchw(g.n, g.c, g.h, g.w);
  cs.yd = nchw(g.n, g.co, g.y.out, g.x.out);
  cudnnFilterDescriptor_t wraw = nullptr;
  QUARRY_CUDA_CHECK(cudnnCreateFilterDescriptor(&wraw));
  cs.wd = FilterDesc(wraw, cudnnDestroyFilterDescriptor);
  QUARRY_CUDA_CHECK(cudnnSetFilter4dDescriptor(
      wraw, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, to_int(g.co), to_int(g.cw),
      to_int(g.kh), to_int(g.kw)));
  cudnnConvolutionDescriptor_t craw = nullptr;
  QUARRY_CUDA_CHECK(cudnnCreateConvolutionDescriptor(&craw));
  cs.cd = ConvDesc(craw, cudnnDestroyConvolutionDescriptor);
  const int pad_h = symmetric_pad(n, g.h, g.eh, s[0], g.y);
  const int pad_w = symmetric_pad(n, g.w, g.ew, s[1], g.x);
  QUARRY_CUDA_CHECK(cudnnSetConvolution2dDescriptor(
      craw, pad_h, pad_w, to_int(s[0]), to_int(s[1]), to_int(g.dh),
      to_int(g.dw), CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
  QUARRY_CUDA_CHECK(cudnnSetConvolutionGroupCount(craw, to_int(g.groups)));
  QUARRY_CUDA_CHECK(cudnnSetConvolutionMathType(
      craw, c.tf32 ? CUDNN_DEFAULT_MATH : CUDNN_FMA_MATH));

  std::string key = c.tf32 ? "tf32," : "";
  for (int64_t v : {g.n, g.c, g.h, g.w, g.co, g.cw, g.kh, g.kw, int64_t{pad_h},
                    int64_t{pad_w}, s[0], s[1], g.dh, g.dw, g.groups})
    key += std::to_string(v) + ",";
  cs.algo = fastest_algorithm(c, cs, key);
  QUARRY_CUDA_CHECK(cudnnGetConvolutionForwardWorkspaceSize(
      c.cudnn, cs.xd.get(), wraw, craw, cs.yd.get(), cs.algo, &cs.bytes));
  c.workspace_bytes = std::max(c.workspace_bytes, cs.bytes);
  return cs;
}

/// Device memory freed with its last owner.
std::shared_ptr<float> device_zeros(int64_t floats) {
  void *p = nullptr;
  QUARRY_CUDA_CHECK(cudaMalloc(&p, sizeof(float) * floats));
  std::shared_ptr<float> owned(static_cast<float *>(p),
                               [](float *q) { cudaFree(q); });
  QUARRY_CUDA_CHECK(cudaMemset(p, 0, sizeof(float) * floats));
  return owned;
}

} // namespace

Step CudaKernel<ops::Conv2D>::make(Context &c, const Node &n, Operands in,
                                   Operands out) {
  const ConvSetup cs = conv_setup(c, n, in);
  Step conv = [&c, cs, x = in[0].data, w = in[1].data, y = out[0].data] {
    QUARRY_CUDA_CHECK(cudnnConvolutionForward(
        c.cudnn, &kOne, cs.xd.get(), x, cs.wd.get(), w, cs.cd.get(), cs.algo,
        c.workspace, cs.bytes, &kZero, cs.yd.get(), y));
  };
  return sequence(
      std::move(conv),
      activation_step(c, static_cast<Activation>(n.attrs.i(ops::Conv2D::kAct)),
                      out[0].shape(), out[0].data));
}

size_t cudnn_fusable_prefix(const Node &anchor,
                            const std::vector<PostOp> &post) {
  if (anchor.kind != OpKind::Conv2D ||
      static_cast<Activation>(anchor.attrs.i(ops::Conv2D::kAct)) !=
          Activation::None)
    return 0;
  bool bias = false, residual = false;
  for (size_t i = 0; i < post.size(); ++i) {
    const PostOp &p = post[i];
    if (p.kind == PostOp::Kind::View || p.kind == PostOp::Kind::Pointwise ||
        p.kind == PostOp::Kind::BatchNorm)
      return 0;
    if (p.kind == PostOp::Kind::Unary)
      return p.unary == UnaryFn::Relu ? i + 1 : 0;
    if (p.binary != ops::BroadcastFn::Add)
      return 0;
    if (p.spread == Spread::PerChannel && p.operand_static && !bias)
      bias = true;
    else if (p.spread == Spread::Full && !residual)
      residual = true;
    else
      return 0;
  }
  return 0; // no relu to end the chain
}

Step fused_conv(Context &c, const Node &n, Operands in, Operands out,
                const std::vector<PostOp> &post) {
  const ConvSetup cs = conv_setup(c, n, in);
  const int64_t co = out[0].shape()[1];
  const float *bias = nullptr;
  const float *z = nullptr;
  int operand = 2;
  for (const PostOp &p : post) {
    if (p.kind != PostOp::Kind::Binary)
      continue;
    (p.spread == Spread::PerChannel ? bias : z) = in[operand++].data;
  }
  // cuDNN always adds a bias; a chain without one adds zeros.
  std::shared_ptr<float> zeros;
  if (!bias) {
    zeros = device_zeros(co);
    bias = zeros.get();
  }
  auto bd = nchw(1, co, 1, 1);
  auto relu = activation(CUDNN_ACTIVATION_RELU);
  // Without a residual, z is y itself with weight 0.
  const float alpha2 = z ? 1.0f : 0.0f;
  return [&c, cs, bd, relu, zeros, bias, z, alpha2, x = in[0].data,
          w = in[1].data, y = out[0].data] {
    QUARRY_CUDA_CHECK(cudnnConvolutionBiasActivationForward(
        c.cudnn, &kOne, cs.xd.get(), x, cs.wd.get(), w, cs.cd.get(), cs.algo,
        c.workspace, cs.bytes, &alpha2, cs.yd.get(), z ? z : y, bd.get(), bias,
        relu.get(), cs.yd.get(), y));
  };
}

Step CudaKernel<ops::MatMul>::make(Context &c, const Node &n, Operands in,
                                   Operands out) {
  const Shape &a = in[0].shape(), &b = in[1].shape();
  const int r = a.rank();
  const int m = to_int(a[r - 2]), k = to_int(a[r - 1]), nn = to_int(b[r - 1]);
  const int batch = to_int(a.numel() / (int64_t(m) * k));
  // Row-major C = A B is column-major C^T = B^T A^T: swap the operands.
  Step gemm = [&c, m, k, nn, batch, ap = in[0].data, bp = in[1].data,
               cp = out[0].data] {
    QUARRY_CUDA_CHECK(cublasSgemmStridedBatched(
        c.cublas, CUBLAS_OP_N, CUBLAS_OP_N, nn, m, k, &kOne, bp, nn,
        int64_t(k) * nn, ap, k, int64_t(m) * k, &kZero, cp, nn, int64_t(m) * nn,
        batch));
  };
  return sequence(
      std::move(gemm),
      activation_step(c, static_cast<Activation>(n.attrs.i(ops::MatMul::kAct)),
                      out[0].shape(), out[0].data));
}

Step CudaKernel<ops::Pool2DAvg>::make(Context &c, const Node &n, Operands in,
                                      Operands out) {
  return pool_step<ops::Pool2DAvg>(
      c, n, CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING, in, out);
}

Step CudaKernel<ops::Pool2DMax>::make(Context &c, const Node &n, Operands in,
                                      Operands out) {
  return pool_step<ops::Pool2DMax>(c, n, CUDNN_POOLING_MAX, in, out);
}

Step CudaKernel<ops::Relu>::make(Context &c, const Node &, Operands in,
                                 Operands out) {
  return unary_step(c, CUDNN_ACTIVATION_RELU, in, out);
}

Step CudaKernel<ops::Sigmoid>::make(Context &c, const Node &, Operands in,
                                    Operands out) {
  return unary_step(c, CUDNN_ACTIVATION_SIGMOID, in, out);
}

Step CudaKernel<ops::Tanh>::make(Context &c, const Node &, Operands in,
                                 Operands out) {
  return unary_step(c, CUDNN_ACTIVATION_TANH, in, out);
}

Step CudaKernel<ops::EwAdd>::make(Context &c, const Node &, Operands in,
                                  Operands out) {
  return binary_step(c, CUDNN_OP_TENSOR_ADD, in, out);
}

Step CudaKernel<ops::EwMul>::make(Context &c, const Node &, Operands in,
                                  Operands out) {
  return binary_step(c, CUDNN_OP_TENSOR_MUL, in, out);
}

Step CudaKernel<ops::ScalarMul>::make(Context &c, const Node &, Operands in,
                                      Operands out) {
  // The scalar stays on the device: cuBLAS reads it through a device pointer.
  return [&c, x = in[0].data, s = in[1].data, y = out[0].data,
          len = to_int(in[0].shape().numel())] {
    QUARRY_CUDA_CHECK(cudaMemcpyAsync(y, x, sizeof(float) * len,
                                      cudaMemcpyDeviceToDevice, c.stream));
    QUARRY_CUDA_CHECK(
        cublasSetPointerMode(c.cublas, CUBLAS_POINTER_MODE_DEVICE));
    QUARRY_CUDA_CHECK(cublasSscal(c.cublas, len, s, y, 1));
    QUARRY_CUDA_CHECK(cublasSetPointerMode(c.cublas, CUBLAS_POINTER_MODE_HOST));
  };
}

Step CudaKernel<ops::BatchNorm>::make(Context &c, const Node &n, Operands in,
                                      Operands out) {
  const Shape &x = in[0].shape();
  const int64_t inner = x.numel() / (x[0] * x[1]);
  auto xd = nchw(x[0], x[1], inner, 1);
  auto pd = nchw(1, x[1], 1, 1);
  const double eps = n.attrs.real(ops::BatchNorm::kEps);
  // Operands: x, scale, bias, mean, var.
  return
      [&c, xd, pd, eps, xp = in[0].data, scale = in[1].data, bias = in[2].data,
       mean = in[3].data, var = in[4].data, y = out[0].data] {
        QUARRY_CUDA_CHECK(cudnnBatchNormalizationForwardInference(
            c.cudnn, CUDNN_BATCHNORM_SPATIAL, &kOne, &kZero, xd.get(), xp,
            xd.get(), y, pd.get(), scale, bias, mean, var, eps));
      };
}

Step CudaKernel<ops::Concat>::make(Context &c, const Node &n, Operands in,
                                   Operands out) {
  const int axis = static_cast<int>(n.attrs.i(ops::Concat::kAxis));
  const ops::AxisBlocks yb(out[0].shape(), axis);
  const int64_t y_row = out[0].shape()[axis] * yb.inner;
  std::vector<std::pair<const float *, int64_t>> parts; // data, row length
  for (const Operand &o : in)
    parts.push_back({o.data, o.shape()[axis] * yb.inner});
  return [&c, parts, y = out[0].data, y_row, outer = yb.outer] {
    int64_t offset = 0;
    for (auto [src, row] : parts) {
      copy_rows(c, y + offset, y_row, src, row, row, outer);
      offset += row;
    }
  };
}

Step CudaKernel<ops::Split>::make(Context &c, const Node &n, Operands in,
                                  Operands out) {
  const int axis = static_cast<int>(n.attrs.i(ops::Split::kAxis));
  const ops::AxisBlocks xb(in[0].shape(), axis);
  const int64_t x_row = in[0].shape()[axis] * xb.inner;
  std::vector<std::pair<float *, int64_t>> parts;
  for (const Operand &o : out)
    parts.push_back({o.data, o.shape()[axis] * xb.inner});
  return [&c, parts, x = in[0].data, x_row, outer = xb.outer] {
    int64_t offset = 0;
    for (auto [dst, row] : parts) {
      copy_rows(c, dst, row, x + offset, x_row, row, outer);
      offset += row;
    }
  };
}

Step CudaKernel<ops::Transpose>::make(Context &c, const Node &n, Operands in,
                                      Operands out) {
  // Read through permuted strides, write row-major.
  const auto &perm = n.attrs.list(ops::Transpose::kPerm);
  const auto in_strides = in[0].shape().strides();
  const Shape &y = out[0].shape();
  if (y.rank() > CUDNN_DIM_MAX - 1)
    throw Error("backend cuda: transpose of rank " + std::to_string(y.rank()) +
                " is beyond cuDNN's tensors");
  std::vector<int> dims, src_strides;
  for (int i = 0; i < y.rank(); ++i) {
    dims.push_back(to_int(y[i]));
    src_strides.push_back(to_int(in_strides[perm[i]]));
  }
  std::vector<int> dst_strides;
  for (int64_t s : y.strides())
    dst_strides.push_back(to_int(s));
  auto xd = strided(dims, src_strides);
  auto yd = strided(dims, dst_strides);
  return [&c, xd, yd, x = in[0].data, yp = out[0].data] {
    QUARRY_CUDA_CHECK(cudnnTransformTensor(c.cudnn, &kOne, xd.get(), x, &kZero,
                                           yd.get(), yp));
  };
}

Step CudaKernel<ops::Reshape>::make(Context &c, const Node &, Operands in,
                                    Operands out) {
  return [&c, x = in[0].data, y = out[0].data,
          bytes = sizeof(float) * in[0].shape().numel()] {
    QUARRY_CUDA_CHECK(
        cudaMemcpyAsync(y, x, bytes, cudaMemcpyDeviceToDevice, c.stream));
  };
}

} // namespace quarry::runtime::cuda
