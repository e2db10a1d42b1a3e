//===- reference_backend.cc - evaluate<FloatDomain> behind Backend --------===//
#include "quarry/runtime/reference_backend.h"

#include "quarry/core/float_domain.h"
#include "quarry/runtime/plan.h"

namespace quarry::runtime {

namespace {

class ReferenceExecutable : public Executable {
public:
  ReferenceExecutable(const Graph &g, const Bindings<float> &weights)
      : graph_(g) {
    // Planning checks shapes, weights and the variables' declarations the
    // same way as the other backends; the reference supports everything.
    plan_ =
        make_plan(graph_, weights, "reference", [](OpKind) { return true; });
    for (const Node &n : graph_.nodes())
      if (n.kind == OpKind::Weight && weights.count(n.name))
        bindings_.insert_or_assign(n.name, weights.find(n.name)->second);
  }

  void set_inputs(const Bindings<float> &inputs) override {
    check_inputs(graph_, plan_, inputs, "reference");
    for (int32_t id : plan_.inputs) {
      const std::string &name = graph_.node(id).name;
      bindings_.insert_or_assign(name, inputs.find(name)->second);
    }
  }

  void execute() override {
    outputs_ = evaluate(FloatDomain{}, graph_, bindings_);
  }

  std::vector<Tensor<float>> outputs() override { return outputs_; }

private:
  Graph graph_;
  Plan plan_;
  Bindings<float> bindings_;
  std::vector<Tensor<float>> outputs_;
};

class ReferenceBackend : public Backend {
public:
  std::string_view name() const override { return "reference"; }
  std::string device_name() const override { return "host float32 reference"; }
  std::unique_ptr<Executable> prepare(const Graph &g,
                                      const Bindings<float> &weights) override {
    return std::make_unique<ReferenceExecutable>(g, weights);
  }
};

} // namespace

std::unique_ptr<Backend> make_reference_backend() {
  return std::make_unique<ReferenceBackend>();
}

} // namespace quarry::runtime
