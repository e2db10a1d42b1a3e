//===- cpu_backend.cc - Plan, lower each step, run in order ---------------===//
#include "quarry/runtime/cpu_backend.h"

#include "kernels.h"
#include "quarry/runtime/plan.h"

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <thread>

namespace quarry::runtime {

using namespace cpu;

namespace {

/// The CPU model from /proc/cpuinfo and the thread count oneDNN will use
/// (OMP_NUM_THREADS, else every hardware thread): both change op costs.
std::string cpu_name() {
  std::string model = "unknown CPU";
  std::ifstream info("/proc/cpuinfo");
  for (std::string line; std::getline(info, line);)
    if (line.rfind("model name", 0) == 0) {
      model = line.substr(line.find(':') + 2);
      break;
    }
  unsigned threads = std::thread::hardware_concurrency();
  if (const char *env = std::getenv("OMP_NUM_THREADS");
      env && std::atoi(env) > 0)
    threads = static_cast<unsigned>(std::atoi(env));
  return model + ", " + std::to_string(threads) + " threads";
}

class CpuExecutable : public Executable {
public:
  CpuExecutable(const Graph &g, const Bindings<float> &weights)
      : graph_(g), plan_(make_plan(graph_, weights, "cpu", cpu_supports)) {
    for (int64_t elems : plan_.buffer_elems)
      buffers_.emplace_back(static_cast<size_t>(elems));
    for (int32_t id : plan_.steps)
      steps_.push_back(lower(id));
  }

  void set_inputs(const Bindings<float> &inputs) override {
    check_inputs(graph_, plan_, inputs, "cpu");
    for (int32_t id : plan_.inputs) {
      const auto &t = inputs.find(graph_.node(id).name)->second;
      std::memcpy(data({id, 0}), t.data.data(), sizeof(float) * t.numel());
    }
  }

  void execute() override {
    for (auto &s : steps_)
      s();
    ctx_.stream.wait();
  }

  std::vector<Tensor<float>> outputs() override {
    std::vector<Tensor<float>> out;
    for (ValueRef v : graph_.outputs()) {
      const Shape &s = plan_.value(v).type.shape;
      const float *p = data(v);
      out.emplace_back(s, std::vector<float>(p, p + s.numel()));
    }
    return out;
  }

private:
  /// Where a value's floats live. Static values are only ever read.
  float *data(ValueRef v) {
    const PlannedValue &pv = plan_.value(v);
    if (pv.is_static)
      return const_cast<float *>(
          plan_.static_values[v.node][v.output].data.data());
    return buffers_[pv.buffer].data();
  }

  Step lower(int32_t id) {
    try {
      return lower_node<CpuKernel>(ctx_, graph_, plan_, id,
                                   [this](ValueRef v) { return data(v); });
    } catch (const dnnl::error &e) {
      throw Error("backend cpu: " + describe_node(graph_, id) +
                  ": oneDNN: " + e.what());
    }
  }

  Graph graph_;
  Plan plan_;
  Context ctx_;
  std::vector<std::vector<float>> buffers_;
  std::vector<Step> steps_;
};

class CpuBackend : public Backend {
public:
  std::string_view name() const override { return "cpu"; }
  std::string device_name() const override { return cpu_name(); }
  std::unique_ptr<Executable> prepare(const Graph &g,
                                      const Bindings<float> &weights) override {
    return std::make_unique<CpuExecutable>(g, weights);
  }
};

} // namespace

bool cpu_supports(OpKind kind) { return has_kernel<CpuKernel>(kind); }

std::unique_ptr<Backend> make_cpu_backend() {
  return std::make_unique<CpuBackend>();
}

} // namespace quarry::runtime
