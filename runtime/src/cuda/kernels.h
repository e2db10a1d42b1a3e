//===- kernels.h - Which operators the cuda backend runs, and how -*- C++
//-*-===//
//
// CudaKernel<Def> lowers one node of operator `Def` to a step queued on the
// context's stream, as cpu/kernels.h does for oneDNN. Operators without a
// specialization run by their reference semantics on the host
// (host_reference; static ones are folded at prepare time). Adding an
// operator: one specialization here, its make() in kernels.cc
// (kernels_float_only.cc for ONNX import's float-only ones).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "../fusion.h"
#include "check.h"
#include "lowering.h"

namespace quarry::runtime::cuda {

/// The one stream, the library handles on it, and the convolution
/// workspace all steps share (sized to the largest need at prepare time).
struct Context {
  cudaStream_t stream = nullptr;
  cudnnHandle_t cudnn = nullptr;
  cublasHandle_t cublas = nullptr;
  void *workspace = nullptr;
  size_t workspace_bytes = 0;
  /// Convolutions and products may round float32 operands to tf32 for the
  /// matrix units (BackendOptions::precision "tf32").
  bool tf32 = false;
};

template <class Def> struct CudaKernel {
  static constexpr bool supported = false;
};

#define QUARRY_CUDA_KERNEL(Def)                                                \
  template <> struct CudaKernel<Def> {                                         \
    static constexpr bool supported = true;                                    \
    static Step make(Context &c, const Node &n, Operands in, Operands out);    \
  };

QUARRY_CUDA_KERNEL(ops::Conv2D)
QUARRY_CUDA_KERNEL(ops::MatMul)
QUARRY_CUDA_KERNEL(ops::Pool2DAvg)
QUARRY_CUDA_KERNEL(ops::Pool2DMax)
QUARRY_CUDA_KERNEL(ops::Relu)
QUARRY_CUDA_KERNEL(ops::Sigmoid)
QUARRY_CUDA_KERNEL(ops::Tanh)
QUARRY_CUDA_KERNEL(ops::EwAdd)
QUARRY_CUDA_KERNEL(ops::EwMul)
QUARRY_CUDA_KERNEL(ops::ScalarMul)
QUARRY_CUDA_KERNEL(ops::BatchNorm)
QUARRY_CUDA_KERNEL(ops::Concat)
QUARRY_CUDA_KERNEL(ops::Split)
QUARRY_CUDA_KERNEL(ops::Transpose)
QUARRY_CUDA_KERNEL(ops::Reshape)
QUARRY_CUDA_KERNEL(ops::Broadcast)
QUARRY_CUDA_KERNEL(ops::Pointwise)
QUARRY_CUDA_KERNEL(ops::Softmax)
QUARRY_CUDA_KERNEL(ops::Slice)
QUARRY_CUDA_KERNEL(ops::Pad)
QUARRY_CUDA_KERNEL(ops::ReduceMean)
QUARRY_CUDA_KERNEL(ops::Reduce)
QUARRY_CUDA_KERNEL(ops::Pool2DExplicit)
QUARRY_CUDA_KERNEL(ops::ConvTranspose)
QUARRY_CUDA_KERNEL(ops::LayerNorm)
QUARRY_CUDA_KERNEL(ops::Where)

#undef QUARRY_CUDA_KERNEL

/// A node of an operator without a CudaKernel, by its reference semantics
/// on the host: its operands copied to pinned host memory, the node
/// evaluated in a host function, its results copied back, all queued on the
/// stream (so a CUDA graph captures it).
Step host_reference(Context &c, const Node &n, Operands in, Operands out);

/// A pool of in[0] into out[0] on quarry's own kernel (device_kernels.h):
/// kernel `k` and strides `s` as (h, w), `pads` as top, left, bottom,
/// right, taps `dilation` apart; max skips padding, avg divides by the
/// window within the padded input when `count_pad`, else by its elements
/// inside the input.
Step explicit_pool(Context &c, Operands in, Operands out,
                   const std::vector<int64_t> &k, const std::vector<int64_t> &s,
                   const std::vector<int64_t> &pads, bool max, bool count_pad,
                   const std::vector<int64_t> &dilation = {1, 1});

/// How many of a convolution's post-ops cuDNN runs in one call
/// (cudnnConvolutionBiasActivationForward: relu(conv + z + bias)): a
/// per-channel static add (the bias) and a full-shape add (the residual z),
/// at most one of each in either order, ending in relu; 0 for any other
/// chain (and for other anchors), whose nodes then run alone.
size_t cudnn_fusable_prefix(const Node &anchor,
                            const std::vector<PostOp> &post);

/// A convolution with such a chain: `in` holds x, w, then the post-ops'
/// operands in order; `out` the chain's result.
Step fused_conv(Context &c, const Node &n, Operands in, Operands out,
                const std::vector<PostOp> &post);

} // namespace quarry::runtime::cuda
