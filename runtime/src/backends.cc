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

double precision_tolerance(std::string_view precision) {
  if (precision == "tf32")
    return 1e-2;
  if (precision == "bf16" || precision == "fp16")
    return 5e-2;
  return 1e-4;
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

namespace {

class PricingBackend : public Backend {
public:
  PricingBackend(std::unique_ptr<Backend> inner, std::string device)
      : inner_(std::move(inner)), device_(std::move(device)) {}
  std::string_view name() const override { return inner_->name(); }
  std::string device_name() const override { return device_; }
  std::unique_ptr<Executable> prepare(const Graph &,
                                      const Bindings<float> &) override {
    throw Error("backend " + std::string(name()) +
                ": only pricing graphs for " + device_ +
                ", another machine; nothing runs here");
  }
  std::vector<bool> fused_away(const Graph &g) const override {
    return inner_->fused_away(g);
  }
  const FusionPolicy *fusion_policy() const override {
    return inner_->fusion_policy();
  }

private:
  std::unique_ptr<Backend> inner_;
  std::string device_;
};

} // namespace

std::unique_ptr<Backend> make_pricing_backend(std::string_view name,
                                              std::string device,
                                              const BackendOptions &opts) {
  std::unique_ptr<Backend> inner;
#ifdef QUARRY_RUNTIME_CUDA
  if (name == "cuda")
    inner = make_cuda_backend_without_device(opts);
#endif
  if (!inner)
    inner = make_backend(name, opts);
  return std::make_unique<PricingBackend>(std::move(inner), std::move(device));
}

} // namespace quarry::runtime
