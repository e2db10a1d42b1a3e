//===- field61_device.cu - CUDA kernels over GF(2^61-1) -------------------===//
#include "field61_device.h"

#include "quarry/field/field61.h"

#include <cuda_runtime.h>

#include <stdexcept>

namespace quarry::cuda {

namespace {

void check(cudaError_t status, const char *call) {
  if (status != cudaSuccess)
    throw std::runtime_error(std::string(call) + ": " +
                             cudaGetErrorString(status));
}
#define QUARRY_CUDA_CHECK(call) check((call), #call)

__global__ void fma_kernel(const uint64_t *a, const uint64_t *b,
                           const uint64_t *c, uint64_t *out, size_t n) {
  size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
  if (i < n)
    out[i] = field61::add(field61::mul(a[i], b[i]), c[i]);
}

} // namespace

int device_count() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess)
    return 0;
  return n;
}

std::vector<uint64_t> field61_fma(const std::vector<uint64_t> &a,
                                  const std::vector<uint64_t> &b,
                                  const std::vector<uint64_t> &c) {
  const size_t n = a.size();
  if (b.size() != n || c.size() != n)
    throw std::invalid_argument("field61_fma: operand sizes differ");
  std::vector<uint64_t> out(n);
  if (n == 0)
    return out;
  const size_t bytes = n * sizeof(uint64_t);
  uint64_t *buf = nullptr; // a, b, c, out back to back
  QUARRY_CUDA_CHECK(cudaMalloc(&buf, 4 * bytes));
  try {
    QUARRY_CUDA_CHECK(cudaMemcpy(buf, a.data(), bytes, cudaMemcpyHostToDevice));
    QUARRY_CUDA_CHECK(
        cudaMemcpy(buf + n, b.data(), bytes, cudaMemcpyHostToDevice));
    QUARRY_CUDA_CHECK(
        cudaMemcpy(buf + 2 * n, c.data(), bytes, cudaMemcpyHostToDevice));
    const unsigned threads = 256;
    const unsigned blocks = static_cast<unsigned>((n + threads - 1) / threads);
    fma_kernel<<<blocks, threads>>>(buf, buf + n, buf + 2 * n, buf + 3 * n, n);
    QUARRY_CUDA_CHECK(cudaGetLastError());
    QUARRY_CUDA_CHECK(
        cudaMemcpy(out.data(), buf + 3 * n, bytes, cudaMemcpyDeviceToHost));
  } catch (...) {
    cudaFree(buf);
    throw;
  }
  QUARRY_CUDA_CHECK(cudaFree(buf));
  return out;
}

} // namespace quarry::cuda
