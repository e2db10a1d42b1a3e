//===- backends.cc - Backends by name -------------------------------------===//
#include "quarry/runtime/backends.h"

#include "quarry/runtime/cpu_backend.h"
#include "quarry/runtime/reference_backend.h"
#ifdef QUARRY_RUNTIME_CUDA
#include "quarry/runtime/cuda_backend.h"
#endif

namespace quarry::runtime {

bool cuda_backend_built() {
#ifdef QUARRY_RUNTIME_CUDA
  return true;
#else
  return false;
#endif
}

std::unique_ptr<Backend> make_backend(std::string_view name,
                                      const BackendOptions &opts) {
  if (name == "reference")
    return make_reference_backend();
  if (name == "cpu")
    return make_cpu_backend(opts);
  if (name == "cuda") {
#ifdef QUARRY_RUNTIME_CUDA
    return make_cuda_backend(opts);
#else
    throw Error("backend cuda: not in this build (configure found no CUDA "
                "toolkit with cuDNN and cuBLAS)");
#endif
  }
  throw Error("unknown backend '" + std::string(name) +
              "' (reference, cpu or cuda)");
}

} // namespace quarry::runtime
