//===- stream_check.cc - A multi-stream plan run on host threads ----------===//
#include "stream_check.h"

#include "quarry/core/float_domain.h"
#include "quarry/runtime/plan.h"
#include "quarry/runtime/streams.h"

#include <atomic>
#include <cstring>
#include <exception>
#include <mutex>
#include <thread>

namespace quarry::runtime {

namespace {

class StreamCheckExecutable : public Executable {
public:
  StreamCheckExecutable(const Graph &g, const Bindings<float> &weights,
                        int streams, std::string_view backend)
      : graph_(g), backend_(backend),
        plan_(
            make_plan(graph_, weights, backend_, [](OpKind) { return true; })) {
    const std::vector<ScheduledStep> schedule = node_schedule(graph_, plan_);
    streams_ = assign_streams(schedule, streams);
    assign_buffers(graph_, plan_, schedule, &streams_.happens_before);
    for (int64_t elems : plan_.buffer_elems)
      buffers_.push_back(std::make_unique<float[]>(
          static_cast<size_t>(std::max<int64_t>(elems, 1))));
  }

  void set_inputs(const Bindings<float> &inputs) override {
    check_inputs(graph_, plan_, inputs, backend_);
    for (int32_t id : plan_.inputs) {
      const auto &t = inputs.find(graph_.node(id).name)->second;
      std::memcpy(data({id, 0}), t.data.data(), sizeof(float) * t.numel());
    }
  }

  void execute() override {
    const size_t n = plan_.steps.size();
    std::vector<std::atomic<bool>> done(n);
    for (auto &d : done)
      d.store(false, std::memory_order_relaxed);
    std::exception_ptr failure;
    std::mutex failure_mu;
    auto stream_thread = [&](int t) {
      for (int i : streams_.order) {
        const size_t k = static_cast<size_t>(i);
        if (streams_.stream_of[k] != t)
          continue;
        for (int p : streams_.waits[k])
          done[static_cast<size_t>(p)].wait(false, std::memory_order_acquire);
        try {
          run_step(k);
        } catch (...) {
          // Later steps still run (on what is there) so no thread waits
          // for ever; the first failure is thrown after the join.
          const std::lock_guard<std::mutex> lock(failure_mu);
          if (!failure)
            failure = std::current_exception();
        }
        done[k].store(true, std::memory_order_release);
        done[k].notify_all();
      }
    };
    std::vector<std::thread> threads;
    for (int t = 1; t < streams_.streams; ++t)
      threads.emplace_back(stream_thread, t);
    stream_thread(0);
    for (std::thread &th : threads)
      th.join();
    if (failure)
      std::rethrow_exception(failure);
  }

  std::vector<Tensor<float>> outputs() override {
    std::vector<Tensor<float>> out;
    for (ValueRef v : graph_.outputs())
      out.push_back(read(v));
    return out;
  }

  std::vector<StepInfo> steps() const override {
    StepInfo s;
    s.label = "plan check (" + std::to_string(plan_.steps.size()) +
              " steps on " + std::to_string(streams_.streams) +
              " threads, one per stream, in " + std::to_string(streams_.waves) +
              " waves)";
    s.impl = "reference";
    return {s};
  }

private:
  float *data(ValueRef v) {
    const PlannedValue &pv = plan_.value(v);
    if (pv.is_static)
      return plan_.static_values[v.node][v.output].data.data();
    return buffers_[static_cast<size_t>(pv.buffer)].get();
  }

  Tensor<float> read(ValueRef v) {
    const Shape &s = plan_.value(v).type.shape;
    const float *p = data(v);
    return Tensor<float>(s, std::vector<float>(p, p + s.numel()));
  }

  void run_step(size_t k) {
    const int32_t id = plan_.steps[k];
    const Node &n = graph_.node(id);
    std::vector<Tensor<float>> in;
    in.reserve(n.inputs.size());
    for (ValueRef v : n.inputs)
      in.push_back(read(v));
    std::vector<const Tensor<float> *> ptrs;
    for (const auto &t : in)
      ptrs.push_back(&t);
    std::vector<TensorType> types;
    for (const PlannedValue &pv : plan_.values[id])
      types.push_back(pv.type);
    const auto results =
        detail::run_node<FloatDomain>(FloatDomain{}, n, ptrs, types);
    for (size_t o = 0; o < results.size(); ++o)
      std::memcpy(data({id, static_cast<int32_t>(o)}), results[o].data.data(),
                  sizeof(float) * results[o].numel());
  }

  Graph graph_;
  std::string backend_;
  Plan plan_;
  StreamPlan streams_;
  std::vector<std::unique_ptr<float[]>> buffers_;
};

} // namespace

std::unique_ptr<Executable> make_stream_check(const Graph &g,
                                              const Bindings<float> &weights,
                                              int streams,
                                              std::string_view backend) {
  return std::make_unique<StreamCheckExecutable>(g, weights, streams, backend);
}

} // namespace quarry::runtime
