//===- cuda_backend.h - Graphs on one GPU through cuDNN and cuBLAS -*- C++
//-*-===//
//
// Convolutions through cuDNN with the fastest algorithm found per
// configuration (cudnnFindConvolutionForwardAlgorithm) and one workspace
// shared by all of them; matmul through cuBLAS (strided batched SGEMM);
// pooling, activations, elementwise and broadcast binaries and batchnorm
// through cuDNN; data movement through the CUDA runtime. A convolution
// followed by a bias, a residual sum and relu runs as one
// cudnnConvolutionBiasActivationForward (fusion.h decides, the graph is
// unchanged). An operator without a cuda kernel runs by its reference
// semantics on the host, between copies queued on the stream. Everything
// is queued on one stream, recorded once into a
// CUDA graph so that a run is one launch (steps run one by one where the
// capture fails); execute() waits for it. Every CUDA, cuDNN and cuBLAS
// status is checked, and a failure names the call that failed.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/runtime/backends.h"

namespace quarry::runtime {

/// Number of CUDA devices present (0 when there is no usable driver).
int cuda_device_count();

/// Throws quarry::Error when no CUDA device is present.
std::unique_ptr<Backend> make_cuda_backend(const BackendOptions &opts = {});
/// The same made without a device, for what it decides from shapes alone
/// (fused_away, fusion_policy): pricing graphs from costs measured on
/// another machine. Its prepare() and device_name() throw where no device
/// is present.
std::unique_ptr<Backend>
make_cuda_backend_without_device(const BackendOptions &opts = {});

/// Whether the cuda backend can run a (dynamic) node of this kind: every
/// operator but the variables, on the GPU where it has a kernel, else by
/// its reference semantics on the host.
bool cuda_supports(OpKind kind);

} // namespace quarry::runtime
