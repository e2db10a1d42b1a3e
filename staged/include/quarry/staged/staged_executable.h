//===- staged_executable.h - Running a whole imported model -----*- C++ -*-===//
//
// A model whose graph holds opaque operators, or that ends in an untyped
// tail (quarry/models/onnx_stages.h), runs here: its graph cut into stages
// (graph_stages.h), each planned and run on the backend, the kept nodes
// run between them; then the tail, imported again with the shapes and
// integers it reads now known, so that what follows a value-dependent node
// (NonZero, NonMaxSuppression) is a static graph again, staged and run the
// same way, until the model's outputs are computed. Each tail so imported
// is kept for runs that read the same shapes and integers.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/models/onnx_stages.h"
#include "quarry/runtime/backend.h"
#include "quarry/staged/graph_stages.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace quarry::staged {

/// Whether `m` keeps nodes a backend cannot run: a live opaque operator or
/// an untyped tail.
bool needs_stages(const Model &m);

/// `m` prepared on `backend` from `values` (its weights, by name): whole,
/// or in stages around the nodes it keeps as ONNX (a StagedExecutable),
/// which then run on quarry's kernels for them. Errors name `file`.
std::unique_ptr<runtime::Executable>
prepare_model(const Model &m, const Bindings<float> &values,
              runtime::Backend &backend, const std::string &file);

class StagedExecutable : public runtime::Executable {
public:
  /// Prepares `m`'s stages on `backend`, weights from `weights` (by name,
  /// as Backend::prepare takes them). `m` and `backend` must outlive it.
  /// `file` names the model in errors.
  StagedExecutable(const Model &m, const Bindings<float> &weights,
                   runtime::Backend &backend, std::string file);
  ~StagedExecutable() override;

  void set_inputs(const Bindings<float> &inputs) override;
  void execute() override;
  /// The model's outputs in the order it declares them (those an untyped
  /// tail computes included), of the shapes this run gave them.
  std::vector<Tensor<float>> outputs() override;
  /// The model's outputs by ONNX name, with their element types.
  const HeldValues &results() const { return results_; }
  /// The backend's steps of each stage, in order, and one step for each
  /// kept node and for the tail.
  std::vector<runtime::StepInfo> steps() const override;
  /// Each stage's steps as its backend times them, then what runs outside
  /// the backend (each kept node; each of the tail's nodes run alone; each
  /// stage of a tail imported again, whole), as medians over `runs` runs
  /// of the whole after `warmup`.
  std::vector<runtime::StepInfo> profile(int warmup, int runs) override;

  /// From the next execute() on (until called with nullptr), also runs
  /// each stage on `reference` with the inputs it had, and records how far
  /// the backend's outputs are from the reference's (checked_error). A
  /// whole-model comparison is no check of a backend where a kept node
  /// decides (a TopK or NonMaxSuppression between scores a rounding apart
  /// orders boxes otherwise); stage by stage, every decision is taken on
  /// the same values.
  void check_against(runtime::Backend *reference);
  /// The largest max_relative_error of a stage's outputs against the
  /// reference in the last execute() (0 when none was checked).
  double checked_error() const { return checked_error_; }

private:
  struct Stage {
    GraphStage cut;
    std::unique_ptr<runtime::Executable> exe;
    /// The stage on the reference backend, made on the first checked run.
    std::unique_ptr<runtime::Executable> reference;
  };
  /// A tail imported for the shapes and integers it read: the model and
  /// its own staged run, or none when its first node runs alone.
  struct ImportedTail {
    std::unique_ptr<Model> model;
    std::unique_ptr<StagedExecutable> exe;
  };

  HeldValue value_of(ValueRef v) const;
  /// `v`'s value for one of its reads, `left` counting down the reads of
  /// each computed value this run: the last read takes it out of
  /// computed_, the others copy it.
  HeldValue take_value(ValueRef v, std::map<ValueRef, int> &left);
  /// The tensor bound to input `n` in `inputs`, checked.
  const Tensor<float> &bound_input(const Node &n,
                                   const Bindings<float> &inputs) const;
  /// set_inputs, moving each input's tensor out of `inputs`.
  void take_inputs(Bindings<float> &&inputs);
  void run_tail(HeldValues &known);

  const Model &m_;
  const Bindings<float> &weights_;
  runtime::Backend &backend_;
  std::string file_;
  KeptOnnx kept_;
  std::vector<Stage> stages_;
  std::vector<std::string> output_names_;
  Bindings<float> inputs_;
  std::map<ValueRef, HeldValue> computed_;
  /// How many times a run reads each value (later stages, kept nodes, the
  /// graph's outputs), so that the last read moves a value rather than
  /// copying it: a detector's pooled regions cross several stages.
  std::map<ValueRef, int> reads_;
  HeldValues results_;
  std::map<std::string, ImportedTail> tails_;
  runtime::Backend *reference_ = nullptr;
  double checked_error_ = 0;
  /// While profile() runs: the milliseconds of what runs outside the
  /// backend, by label, one entry per run, labels in the order first run;
  /// shared with the tails' executables.
  struct Timings {
    std::vector<std::string> order;
    std::map<std::string, std::vector<double>> ms;
    void add(const std::string &label, double ms);
  };
  Timings *timings_ = nullptr;
  /// Whether this runs part of another model's untyped tail.
  bool is_tail_ = false;
};

} // namespace quarry::staged
