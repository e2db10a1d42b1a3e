//===- staged_executable.cc - Running a whole imported model --------------===//
#include "quarry/staged/staged_executable.h"

#include "quarry/core/error.h"
#include "quarry/core/ops/opaque.h"
#include "quarry/core/timed_in_turn.h"
#include "quarry/runtime/run_inputs.h"

#include <algorithm>
#include <chrono>

namespace quarry::staged {

namespace {

/// Imported tails kept at most; past it all are let go (a model whose tail
/// reads new integers every run imports it every run).
constexpr size_t kMaxImportedTails = 16;

/// How steps() names the steps that run outside the backend.
constexpr const char *kKeptImpl = "kept ONNX node";
constexpr const char *kTailImpl = "staged";

double elapsed_ms(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double, std::milli>(
             std::chrono::steady_clock::now() - since)
      .count();
}

/// What an imported tail depends on in `known`: every value's name, type
/// and shape, and the values of those it takes as constants.
std::string tail_key(int first, const HeldValues &known) {
  std::string key = std::to_string(first);
  for (const auto &[name, v] : known) {
    key += '\n' + name + ':' + std::to_string(v.elem);
    for (int64_t d : v.value.shape.dims)
      key += ',' + std::to_string(d);
    const bool constant =
        v.elem != 1 || v.value.numel() <= KeptOnnx::kConstantElements;
    if (constant)
      key.append(reinterpret_cast<const char *>(v.value.data.data()),
                 v.value.data.size() * sizeof(float));
  }
  return key;
}

/// Graph inputs lent to a stage's bindings for its run, and given back
/// when it ends (however it ends): inputs_ keeps them for the next run.
class LentInputs {
public:
  LentInputs(Bindings<float> &owner, Bindings<float> &to)
      : owner_(owner), to_(to) {}
  void lend(const std::string &name) {
    if (auto it = owner_.find(name); it != owner_.end()) {
      to_[name] = std::move(it->second);
      names_.push_back(name);
    }
  }
  ~LentInputs() {
    for (const std::string &name : names_)
      owner_[name] = std::move(to_[name]);
  }
  LentInputs(const LentInputs &) = delete;
  LentInputs &operator=(const LentInputs &) = delete;

private:
  Bindings<float> &owner_, &to_;
  std::vector<std::string> names_;
};

} // namespace

bool needs_stages(const Model &m) {
  if (m.kept_onnx.empty())
    return false;
  const std::vector<bool> live = m.graph.live_nodes();
  for (int32_t id = 0; id < m.graph.num_nodes(); ++id)
    if (live[id] && m.graph.node(id).kind == OpKind::Opaque)
      return true;
  return KeptOnnx(m, "").tail_size() > 0;
}

std::unique_ptr<runtime::Executable>
prepare_model(const Model &m, const Bindings<float> &values,
              runtime::Backend &backend, const std::string &file) {
  try {
    if (needs_stages(m))
      return std::make_unique<StagedExecutable>(m, values, backend, file);
    return backend.prepare(m.graph, values);
  } catch (const Error &e) {
    throw Error(file + ": " + e.what());
  }
}

StagedExecutable::StagedExecutable(const Model &m,
                                   const Bindings<float> &weights,
                                   runtime::Backend &backend, std::string file)
    : m_(m), weights_(weights), backend_(backend), file_(std::move(file)),
      kept_(m, file_), output_names_(kept_.graph_output_names()) {
  if (output_names_.size() != m.graph.outputs().size())
    throw Error(file_ + ": the model names " +
                std::to_string(output_names_.size()) +
                " values its graph computes, but the graph has " +
                std::to_string(m.graph.outputs().size()) + " outputs");
  for (GraphStage &cut : split_at_opaque(m.graph)) {
    Stage st{std::move(cut), nullptr, nullptr};
    if (!st.cut.graph.outputs().empty())
      st.exe = backend.prepare(st.cut.graph, weights);
    stages_.push_back(std::move(st));
  }
  for (const Stage &st : stages_) {
    for (ValueRef v : st.cut.reads)
      ++reads_[v];
    for (int32_t id : st.cut.then_opaque)
      for (ValueRef v : m.graph.node(id).inputs)
        ++reads_[v];
  }
  for (ValueRef v : m.graph.outputs())
    ++reads_[v];
}

StagedExecutable::~StagedExecutable() = default;

const Tensor<float> &
StagedExecutable::bound_input(const Node &n,
                              const Bindings<float> &inputs) const {
  auto it = inputs.find(n.name);
  if (it == inputs.end())
    throw Error(file_ + ": input '" + n.name + "' is not bound");
  if (it->second.shape != n.types.at(0).shape)
    throw Error(file_ + ": input '" + n.name + "' is bound with shape " +
                it->second.shape.str() + ", not " + n.types.at(0).shape.str());
  return it->second;
}

void StagedExecutable::set_inputs(const Bindings<float> &inputs) {
  inputs_.clear();
  for (const Node &n : m_.graph.nodes())
    if (n.kind == OpKind::Input)
      inputs_[n.name] = bound_input(n, inputs);
}

void StagedExecutable::take_inputs(Bindings<float> &&inputs) {
  inputs_.clear();
  for (const Node &n : m_.graph.nodes())
    if (n.kind == OpKind::Input) {
      bound_input(n, inputs);
      inputs_[n.name] = std::move(inputs.find(n.name)->second);
    }
}

HeldValue StagedExecutable::value_of(ValueRef v) const {
  if (auto it = computed_.find(v); it != computed_.end())
    return it->second;
  const Node &n = m_.graph.node(v.node);
  const Bindings<float> &from = n.kind == OpKind::Input ? inputs_ : weights_;
  auto it = from.find(n.name);
  if (!n.is_variable() || it == from.end())
    throw Error(file_ + ": value " + std::to_string(v.node) + ":" +
                std::to_string(v.output) + " is not computed");
  return {it->second, kept_.variable_elem(n.name)};
}

HeldValue StagedExecutable::take_value(ValueRef v,
                                       std::map<ValueRef, int> &left) {
  auto it = computed_.find(v);
  if (it == computed_.end())
    return value_of(v);
  if (auto l = left.find(v); l != left.end() && --l->second == 0) {
    HeldValue out = std::move(it->second);
    computed_.erase(it);
    return out;
  }
  return it->second;
}

void StagedExecutable::check_against(runtime::Backend *reference) {
  reference_ = reference;
  for (auto &[key, tail] : tails_)
    if (tail.exe)
      tail.exe->check_against(reference);
}

void StagedExecutable::execute() {
  computed_.clear();
  checked_error_ = 0;
  std::map<ValueRef, int> left = reads_;
  for (Stage &st : stages_) {
    if (st.exe) {
      Bindings<float> in;
      LentInputs lent(inputs_, in);
      for (const Node &n : st.cut.graph.nodes())
        if (n.kind == OpKind::Input)
          lent.lend(n.name);
      for (size_t i = 0; i < st.cut.reads.size(); ++i)
        in[st.cut.read_names[i]] = take_value(st.cut.reads[i], left).value;
      const auto t0 = std::chrono::steady_clock::now();
      st.exe->set_inputs(in);
      st.exe->execute();
      std::vector<Tensor<float>> out = st.exe->outputs();
      if (timings_)
        timings_->add("stage of " +
                          std::to_string(st.cut.graph.num_operators()) +
                          " operators" + (is_tail_ ? " in the tail" : ""),
                      elapsed_ms(t0));
      if (reference_) {
        if (!st.reference)
          st.reference = reference_->prepare(st.cut.graph, weights_);
        checked_error_ = std::max(
            checked_error_, runtime::max_relative_error(
                                out, runtime::run_once(*st.reference, in)));
      }
      for (size_t i = 0; i < out.size(); ++i)
        computed_[st.cut.computes[i]] = {std::move(out[i]), 1};
    }
    for (int32_t id : st.cut.then_opaque) {
      const Node &n = m_.graph.node(id);
      const auto t0 = std::chrono::steady_clock::now();
      std::vector<HeldValue> operands;
      for (ValueRef v : n.inputs)
        operands.push_back(take_value(v, left));
      std::vector<HeldValue> out =
          kept_.run_node(n.attrs.i(ops::Opaque::kId), operands);
      if (timings_)
        timings_->add("kept node '" + n.name + "'", elapsed_ms(t0));
      for (size_t o = 0; o < out.size(); ++o)
        computed_[{id, static_cast<int32_t>(o)}] = std::move(out[o]);
    }
  }
  HeldValues known;
  for (size_t i = 0; i < output_names_.size(); ++i)
    known[output_names_[i]] = take_value(m_.graph.outputs()[i], left);
  run_tail(known);
  results_.clear();
  for (const std::string &name : kept_.model_output_names()) {
    auto it = known.find(name);
    if (it == known.end())
      throw Error(file_ + ": output '" + name + "' is not computed");
    results_[name] = std::move(it->second);
  }
}

void StagedExecutable::run_tail(HeldValues &known) {
  for (int first = 0; first < kept_.tail_size();) {
    const std::string key = tail_key(first, known);
    auto found = tails_.find(key);
    if (found == tails_.end()) {
      if (tails_.size() >= kMaxImportedTails)
        tails_.clear();
      ImportedTail t;
      if (std::optional<Model> rest = kept_.import_tail(first, known)) {
        t.model = std::make_unique<Model>(std::move(*rest));
        t.exe = std::make_unique<StagedExecutable>(*t.model, t.model->weights,
                                                   backend_, file_);
        t.exe->is_tail_ = true;
        t.exe->check_against(reference_);
      }
      found = tails_.emplace(key, std::move(t)).first;
    }
    if (!found->second.exe) {
      // Its outputs' shapes depend on its operands' values: it runs alone.
      const auto t0 = std::chrono::steady_clock::now();
      kept_.run_tail_node(first, known);
      if (timings_)
        timings_->add("tail " + kept_.tail_node_label(first), elapsed_ms(t0));
      ++first;
      continue;
    }
    StagedExecutable &rest = *found->second.exe;
    // A value the tail reads once and the model does not output is moved
    // in; nothing reads `known` after the tail but for those outputs.
    const std::map<std::string, std::string> names =
        rest.kept_.graph_input_names();
    std::map<std::string, int> readers;
    for (const auto &[variable, name] : names)
      ++readers[name];
    for (const std::string &name : kept_.model_output_names())
      ++readers[name];
    Bindings<float> in;
    for (const auto &[variable, name] : names) {
      HeldValue &v = known.at(name);
      if (readers[name] == 1)
        in[variable] = std::move(v.value);
      else
        in[variable] = v.value;
    }
    rest.take_inputs(std::move(in));
    rest.timings_ = timings_;
    rest.execute();
    rest.timings_ = nullptr;
    checked_error_ = std::max(checked_error_, rest.checked_error());
    for (const auto &[name, v] : rest.results())
      known[name] = v;
    return;
  }
}

std::vector<Tensor<float>> StagedExecutable::outputs() {
  std::vector<Tensor<float>> out;
  for (const std::string &name : kept_.model_output_names())
    out.push_back(results_.at(name).value);
  return out;
}

void StagedExecutable::Timings::add(const std::string &label, double t) {
  auto [it, fresh] = ms.try_emplace(label);
  if (fresh)
    order.push_back(label);
  it->second.push_back(t);
}

std::vector<runtime::StepInfo> StagedExecutable::profile(int warmup, int runs) {
  for (int i = 0; i < std::max(warmup, 1); ++i)
    execute();
  Timings timings;
  timings_ = &timings;
  for (int i = 0; i < std::max(runs, 1); ++i)
    execute();
  timings_ = nullptr;
  // The first stages' steps as their backend times them; what runs outside
  // it, and the tail's stages, whole.
  std::vector<runtime::StepInfo> out;
  for (Stage &st : stages_)
    if (st.exe)
      for (runtime::StepInfo s : st.exe->profile(warmup, runs))
        out.push_back(std::move(s));
  for (const std::string &label : timings.order) {
    if (label.starts_with("stage of ") && !label.ends_with(" in the tail"))
      continue; // timed step by step above
    runtime::StepInfo s;
    s.label = label;
    s.impl = label.starts_with("stage of ") ? kTailImpl : kKeptImpl;
    s.ms = median(timings.ms.at(label));
    out.push_back(std::move(s));
  }
  return out;
}

std::vector<runtime::StepInfo> StagedExecutable::steps() const {
  std::vector<runtime::StepInfo> out;
  for (const Stage &st : stages_) {
    if (st.exe)
      for (runtime::StepInfo s : st.exe->steps())
        out.push_back(std::move(s));
    for (int32_t id : st.cut.then_opaque) {
      runtime::StepInfo s;
      s.label = "kept node '" + m_.graph.node(id).name + "'";
      s.impl = kKeptImpl;
      s.nodes = {id};
      out.push_back(std::move(s));
    }
  }
  if (kept_.tail_size() > 0) {
    runtime::StepInfo s;
    s.label = "untyped tail of " + std::to_string(kept_.tail_size()) + " nodes";
    s.impl = kTailImpl;
    out.push_back(std::move(s));
  }
  return out;
}

} // namespace quarry::staged
