//===- onnx_stages.h - Running what an imported model keeps as ONNX -*- C++
//-*-===//
//
// An imported model may keep ONNX nodes quarry's graph cannot express:
// opaque operators inside the graph (their outputs typed by ONNX), and an
// untyped tail after it (nodes whose shapes depend on values: NonZero,
// NonMaxSuppression, what reads them). These run them once the values
// they read are known:
//   - a kept node runs on quarry's own kernel for its operator (NonZero,
//     TopK, NonMaxSuppression, RoiAlign, ArgMax, GatherND, Unique, ...:
//     models/src/onnx_kernels.h), or else is imported alone with its
//     operands as constants and evaluated by the reference semantics;
//   - the tail is imported again from the node it has reached, its
//     operands now of fixed shapes and its integers constants, so that
//     what follows a value-dependent node becomes a static graph of its
//     own, planned and run on a backend (staged/).
// Values are float32 holding their ONNX element type's values, as quarry
// holds integers and bools everywhere (exact up to 2^24).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/core/error.h"
#include "quarry/core/model.h"

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace quarry {

/// One ONNX value while a model runs.
struct HeldValue {
  Tensor<float> value;
  /// The ONNX element type (onnx::TensorProto::DataType; 1 is float32).
  int32_t elem = 1;
};
using HeldValues = std::map<std::string, HeldValue, std::less<>>;

/// What KeptOnnx throws for a kept node quarry has no way to run (an
/// operator it has no kernel for and cannot import even with its operands
/// known), as against operands a kernel refuses: the model asks for more
/// than quarry runs.
class Unrunnable : public Error {
public:
  using Error::Error;
};

/// What an imported model keeps as ONNX, parsed once, for running it (from
/// one thread at a time: it keeps the constants it decodes).
class KeptOnnx {
public:
  /// `file` names the model in errors.
  KeptOnnx(const Model &m, std::string file);
  ~KeptOnnx();
  KeptOnnx(const KeptOnnx &) = delete;
  KeptOnnx &operator=(const KeptOnnx &) = delete;

  /// Runs the node kept for opaque operator `id` of the model's graph on
  /// `operands` (the operator's inputs, in order): its outputs. Throws
  /// quarry::Error naming the node, its operator and what is missing when
  /// quarry cannot run it.
  std::vector<HeldValue> run_node(int64_t id,
                                  const std::vector<HeldValue> &operands) const;

  /// The ONNX names of the values the model's graph computes, one per
  /// graph output in order: the model outputs it computes, then what its
  /// untyped tail reads.
  std::vector<std::string> graph_output_names() const;
  /// The ONNX name of each graph input an application feeds, by quarry's
  /// variable name.
  std::map<std::string, std::string> graph_input_names() const;
  /// The model's outputs by their ONNX names, in the declared order.
  std::vector<std::string> model_output_names() const;
  /// The ONNX element type the model declares for each of its outputs,
  /// in order (FLOAT where it declares none).
  std::vector<int32_t> model_output_elems() const;
  /// The ONNX element type of quarry's graph input or weight `variable`
  /// (an integer input, float16 weights), float32 where none is recorded.
  int32_t variable_elem(const std::string &variable) const;
  /// The graph inputs the model declares as integers or bools of at most
  /// 8 values (a sample rate, a flag): parameters whose values decide a
  /// branch or a shape, so that a run on made-up values of theirs may ask
  /// for what the model never computes.
  std::vector<std::string> integer_parameters() const;

  /// How many nodes the untyped tail holds (0: none).
  int tail_size() const;
  /// "node 'NAME' (Op)" for node `k` of the untyped tail.
  std::string tail_node_label(int k) const;
  /// Runs node `k` of the untyped tail on `known` (which holds what it
  /// reads), adding its outputs; as run_node does.
  void run_tail_node(int k, HeldValues &known) const;
  /// The untyped tail from node `first` on, imported as a model of its own
  /// now that `known` holds every value it reads from before `first`:
  /// float values of more than kConstantElements elements become graph
  /// inputs of their shapes (named as `known` names them:
  /// graph_input_names), the others constants. Its outputs are the model
  /// outputs those nodes compute. nullopt when node `first` still has
  /// outputs of unknown shape (run it with run_tail_node).
  std::optional<Model> import_tail(int first, const HeldValues &known) const;

  /// Float values up to this many elements enter an imported tail as
  /// constants (a computed scale, a threshold), so that what depends on
  /// them folds.
  static constexpr int64_t kConstantElements = 16;

private:
  struct Parts;
  std::unique_ptr<Parts> parts_;
};

} // namespace quarry
