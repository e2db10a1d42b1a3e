//===- onnx_importer.h - State of one ONNX import ---------------*- C++ -*-===//
//
// The importer walks the ONNX graph's nodes in order. Every ONNX value is
// either a quarry value (a ValueRef) or a known constant (initializers,
// Constant nodes, and what folds from them); a constant used as a tensor
// operand becomes a weight with its value in the weight table.
// onnx_import_ops.cc holds one handler per ONNX operator.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "onnx_constants.h"
#include "onnx_tensor.h"
#include "quarry/models/onnx.h"

#include <deque>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>

namespace quarry::onnx_io {

class Importer;
using Handler = std::function<void(Importer &)>;

class Importer {
public:
  Importer(const onnx::ModelProto &model, const std::string &file,
           const OnnxImportOptions &opts);
  Model run();

  // --- for the operator handlers -----------------------------------------
  const onnx::NodeProto &node() const { return *node_; }
  int64_t opset() const { return opset_; }
  int num_inputs() const;
  /// Whether input `i` is present (ONNX leaves optional inputs empty).
  bool has_input(int i) const;
  /// Whether the node's (optional) output `i` is there and named.
  bool has_output(int i) const;
  /// Input `i` as a quarry value (a constant becomes a weight).
  ValueRef in(int i);
  /// Input `i` as a constant, or nullptr.
  const Constant *const_in(int i) const;
  /// Input `i` as a constant; an error when it is computed at run time.
  const Constant &need_const(int i, const char *what) const;
  const Shape &shape(ValueRef v) const { return g_.type(v)->shape; }
  /// The shape of input `i`, constant or computed (no weight is made).
  Shape input_shape(int i) const;

  int64_t attr_int(const char *name, int64_t def) const;
  float attr_float(const char *name, float def) const;
  std::string attr_string(const char *name, const std::string &def) const;
  std::optional<std::vector<int64_t>> attr_ints(const char *name) const;
  const onnx::AttributeProto *attr(const char *name) const;

  /// Adds a quarry operator; shape errors name the ONNX node.
  ValueRef add(OpKind kind, Attrs attrs, std::vector<ValueRef> inputs);
  ValueRef add(OpKind kind, std::vector<ValueRef> inputs) {
    return add(kind, make_attrs(kind), std::move(inputs));
  }
  std::vector<ValueRef> add_multi(OpKind kind, Attrs attrs,
                                  std::vector<ValueRef> inputs);
  /// A new weight holding `value`.
  ValueRef constant_weight(const std::string &hint, Tensor<float> value);
  /// Records that weight `w` holds the ONNX constant `onnx_name` (of
  /// `onnx_shape` there), so that export writes it under that name where
  /// it writes it of that shape (onnx_kept.h).
  void name_weight(ValueRef w, const std::string &onnx_name,
                   const Shape &onnx_shape);
  void set_output(int i, ValueRef v);
  void set_output_const(int i, Constant c);

  /// Runs `h` as if the current node were `n` (a rewritten copy: lifted
  /// attributes, renamed inputs and outputs), then restores the node.
  void run_as(const onnx::NodeProto &n,
              const std::function<void(Importer &)> &h);
  /// Whether input `i` is an ONNX bool (quarry holds it as 0 and 1): a
  /// comparison's result, or a bool constant.
  bool is_bool(int i) const;
  /// Output `i` is an ONNX bool, held as 0 and 1.
  void set_bool_output(int i) { set_held_output(i, onnx::TensorProto::BOOL); }
  /// Output `i` is of ONNX type `elem`, its values held as float32 (a
  /// quantized integer).
  void set_held_output(int i, int32_t elem);
  /// The ONNX type of input `i` where quarry holds it as float32 but ONNX
  /// types it otherwise (held_; an integer constant); 0 otherwise.
  int32_t held_elem(int i) const;

  /// The current node's outputs, evaluated by the reference semantics of
  /// what handler `h` builds from its inputs, which are all constants,
  /// each with its ONNX type (float32 but where the handler or an operand
  /// passed through says otherwise); the graph is left as it was. Nothing
  /// when the handler refuses the node, an output is not a value it
  /// computes, or a value it computes holds more than `max_elements`.
  struct Evaluated {
    std::vector<Tensor<float>> values;
    std::vector<int32_t> elems;
  };
  std::optional<Evaluated> evaluate_handler(const Handler &h,
                                            int64_t max_elements);

  /// Names a value or a constant for later nodes (run_as's inputs).
  void define(const std::string &name, ValueRef v) { values_[name] = v; }
  void define_const(const std::string &name, Constant c) {
    constants_.set(name, std::move(c));
  }
  /// The value named `name` (a graph value, not a constant); fails when
  /// no node has computed it.
  ValueRef value(const std::string &name);

  [[noreturn]] void fail(const std::string &message) const;
  /// `axis` (negative counts from the end) as 0..rank-1; fails otherwise.
  int axis(int64_t axis, int rank) const;

private:
  void read_inputs_and_initializers();
  /// The graph's nodes, each after the nodes computing what it reads (its
  /// subgraphs' reads included); fails naming a node on a cycle.
  std::vector<const onnx::NodeProto *> nodes_in_order();
  /// The current node of a model past opset 17 in the form of opset 17
  /// that computes the same (onnx_late_opsets.h): one or a few nodes, the
  /// constants they read defined; nothing when the node's form is the same
  /// at 17. Fails where opset 17 cannot say it.
  std::optional<std::vector<onnx::NodeProto>> opset17_form();
  /// A name for a value or constant of an opset-17 form, taken by nothing.
  std::string opset17_name(const std::string &hint);
  /// Defines constant `c` under a new name from `hint`; returns the name.
  std::string opset17_constant(const std::string &hint, Constant c);
  /// opset17_constant of int64s `v` (one axis), and of `shape` full of `v`.
  std::string opset17_ints(const std::string &hint,
                           const std::vector<int64_t> &v);
  std::string opset17_floats(const std::string &hint, Shape shape, double v);
  /// opset17_form of the operators born at opset 23: RMSNormalization,
  /// Attention and RotaryEmbedding (onnx_late_opsets_23.cc).
  std::optional<std::vector<onnx::NodeProto>> opset23_form();
  /// opset23_form of RotaryEmbedding, its values named under `base`.
  std::vector<onnx::NodeProto> rotary_embedding(const std::string &base);
  void import_node(const std::map<std::string, Handler, std::less<>> &table);
  /// Why the current node cannot be handed to a handler ("" when it can):
  /// another domain, no handler, subgraphs, or an operand that is not
  /// float32 (onnx_import_kept.cc).
  std::string
  needs_keeping(const std::map<std::string, Handler, std::less<>> &table) const;
  /// Adds the current node as an opaque operator, its outputs typed by ONNX
  /// shape inference, or to the untyped tail when neither inference nor the
  /// model fixes their shapes; returns why it cannot ("" on success). The
  /// kept node records `because`, why quarry keeps it (kKeptBecauseAttr).
  std::string keep_node(const std::string &because);
  /// "node 'NAME' (Op): " for the current node, as fail() starts.
  std::string where() const;
  /// What `e`, thrown by fail(), says of the node, without the file or
  /// the node's name.
  std::string reason_of(const Error &e) const;
  /// Appends constant `name` (decoded or not) to `out`, as the initializer
  /// a kept node reads (float16 and bfloat16 as the float32 quarry runs
  /// them in), or with `own_type` in the type the model gave it (what a
  /// node written back as the model wrote it reads); false when no
  /// constant has that name. Throws quarry::Error when its element type
  /// cannot be written.
  bool kept_constant(const std::string &name,
                     std::vector<onnx::TensorProto> &out,
                     bool own_type = false) const;
  /// The value named `name`, which quarry holds as float32 (held_), in
  /// its ONNX type for kept nodes: a kept Cast, made on first use.
  ValueRef onnx_typed(const std::string &name);
  /// An If whose condition is computed: both branches, node by node, and
  /// where(cond, then, else) per output; false (nothing changed) when that
  /// cannot express it (a branch output of another shape, a kept node).
  bool lower_branches(const std::map<std::string, Handler, std::less<>> &table);
  /// A Loop of a constant trip count, or a Scan, as its body's nodes once
  /// per iteration (onnx_import_loops.cc); false (nothing changed) where
  /// that cannot express it.
  bool unroll_loop(const std::map<std::string, Handler, std::less<>> &table);
  bool unroll_scan(const std::map<std::string, Handler, std::less<>> &table);
  /// Runs `step`, an import of the current node as other nodes, given the
  /// graph's node count before it (lower_branches, the unrolled loops);
  /// where it throws quarry::Error, puts back everything it changed and
  /// returns false.
  bool attempt(const std::function<void(int num_nodes)> &step);
  /// The value named `name` as quarry's (a constant made a weight); throws
  /// where it is not a float tensor quarry holds (a bool, an integer, one
  /// of the untyped tail).
  ValueRef float_tensor(const std::string &name);
  /// The rank of value or constant `name`.
  int rank_of(const std::string &name);
  /// Sets output `k` of the current node to the values named `names`
  /// stacked along a new axis `axis`: a constant where they all are, else
  /// float tensors (float_tensor).
  void stack_output(int k, const std::vector<std::string> &names, int64_t axis);
  /// A Loop's or Scan's outputs: first the carried values named `state`,
  /// then each scan output k stacking the values `scanned[k]` along a new
  /// axis `axes[k]` (negative counts from the end), in reverse where
  /// `reversed[k]`.
  void loop_outputs(const std::vector<std::string> &state,
                    const std::vector<std::vector<std::string>> &scanned,
                    const std::vector<int64_t> &axes,
                    const std::vector<int64_t> &reversed);
  /// Makes node output `to` the value named `from` (a value, a constant, or
  /// one of the untyped tail); false where nothing of that name was made.
  bool alias_value(const std::string &from, const std::string &to);
  /// After handler of the current node ran: an operator that passes its
  /// operand's type through (Reshape, Concat, ...) gives a bool of a bool,
  /// a quantized integer of one.
  void propagate_held();
  /// Whether the current node reads a value of the untyped tail.
  bool reads_untyped() const;
  /// Adds the current node to the untyped tail (onnx_kept.h), `because`
  /// why quarry keeps it; returns why it cannot ("" on success).
  std::string add_to_tail(const std::string &because);
  /// The function of kept_ called `name` (onnx_kept.h), made on first use.
  onnx::FunctionProto &kept_function(const char *name);
  /// The untyped tail in kept_, made on first use.
  onnx::FunctionProto &tail();
  /// Records in kept_ what export needs to write the model's interface as
  /// it was: the ONNX names of the graph inputs quarry made variables of,
  /// and the model's and graph's metadata (onnx_kept.h).
  void record_interface();
  /// The model's opset per domain.
  std::unordered_map<std::string, int> opset_imports() const;
  /// Why node `n` cannot be typed by ONNX: it reads a graph input that is
  /// not a tensor (a map, a sequence) where its operator takes another
  /// type ("" when it does not).
  std::string non_tensor_misread(const onnx::NodeProto &n) const;
  /// What ONNX's checker says of node `n` ("" when it accepts it).
  std::string onnx_checker_verdict(const onnx::NodeProto &n) const;
  /// Why the current node's quantization parameters make it invalid (a
  /// scale it divides by that is not positive, a zero point whose type is
  /// not its operand's or is no integer); "" when they are valid or not
  /// known (onnx_import_quantized.cc).
  std::string invalid_quantization() const;
  /// Why kept node `n` must not reach ONNX's shape inference in `probe`
  /// (its operands as inputs and initializers): the malformed windows and
  /// kernels that crash it ("" when none).
  std::string check_kept_node(const onnx::NodeProto &n,
                              const onnx::GraphProto &probe);
  /// An If whose condition is constant: the branch taken, node by node,
  /// in its place.
  void inline_branch(const std::map<std::string, Handler, std::less<>> &table);
  /// The initializers and nodes of an If's branch `g`, into this graph;
  /// its outputs are then defined by their names in `g`.
  void import_branch(const onnx::GraphProto &g,
                     const std::map<std::string, Handler, std::less<>> &table);
  /// The model's local function node `n` calls, where import inlines it
  /// (onnx_import_functions.cc); nullptr otherwise.
  const onnx::FunctionProto *local_function(const onnx::NodeProto &n) const;
  /// The nodes of `f`'s body as `call` runs them, kept in inlined_.
  std::vector<const onnx::NodeProto *>
  inline_call(const onnx::NodeProto &call, const onnx::FunctionProto &f);
  /// Imports node `n` of the graph (at `depth` 0, recorded for export) or
  /// of an inlined body: a call of a local function as its body's nodes,
  /// any other node by its handler.
  void
  import_call_or_node(const onnx::NodeProto &n,
                      const std::map<std::string, Handler, std::less<>> &table,
                      int depth);
  /// Takes back what a failed handler added after `num_nodes` nodes.
  void roll_back(int num_nodes);
  ValueRef in_const_as_value(const std::string &name);
  /// A graph output that folded to an integer constant float32 cannot
  /// hold exactly becomes a kept Constant node, so export writes it with
  /// its own type and values.
  void keep_constant_output(const std::string &name);
  /// Names each quarry operator that node `n` made (those numbered from
  /// `before` on) computing its outputs after them, and records the ONNX
  /// names (kNamesFunction) for export.
  void name_outputs(const onnx::NodeProto &n, int before);
  /// Records node `n`, which made the quarry operators numbered from
  /// `before` on, for export to write back as it was where the graph still
  /// holds what it made (onnx_restorable.h), with the model's types of
  /// the values quarry holds as float32; nothing where export could not (a
  /// value of the untyped tail, a constant too large to keep twice).
  void record_restorable(const onnx::NodeProto &n, int before);
  /// Notes node `n`, which folded, where its one output is a float32
  /// tensor computed from one of another type and from inputs no larger
  /// (int8 weights or an int32 bias dequantized, float16 weights cast):
  /// should the output become a weight, record_folded_weight records the
  /// node for export.
  void note_folded(const onnx::NodeProto &n);
  /// Records the node that folded into constant `name` (note_folded), with
  /// the constants it reads; nullptr where there is none.
  onnx::NodeProto *record_folded(const std::string &name);
  /// Records the node that folded into constant `name` (note_folded), now
  /// the quarry weight `w`, which holds its values in `onnx_shape` or
  /// another (kFoldedWeightsFunction, onnx_restorable.h).
  void record_folded_weight(const std::string &name, ValueRef w,
                            const Shape &onnx_shape);
  /// Notes which of node `n`'s outputs the model types float16 or
  /// bfloat16 (computed as float32): a Cast's to them, and what any other
  /// node computes from them, unless quarry holds it otherwise (half_).
  void note_half_outputs(const onnx::NodeProto &n);
  /// float16 or bfloat16 where the model types value `name` so (a graph
  /// input, an initializer, a node's output), else 0.
  int32_t half_elem(const std::string &name) const;
  /// Records that quarry's name `quarry` stands for the ONNX values `onnx`,
  /// computed by the ONNX node `node_name` (onnx_kept.h); returns the
  /// record.
  onnx::NodeProto &record_names(const std::string &quarry,
                                const std::vector<std::string> &onnx,
                                const std::string &node_name);
  /// Records that quarry's variable `variable` (a graph input or weight)
  /// is of ONNX element type `elem`, not float32, for export (onnx_kept.h).
  void record_elem(const std::string &variable, int32_t elem);
  std::string fresh_name(const std::string &onnx_name);

  const onnx::ModelProto &model_;
  std::string file_;
  const OnnxImportOptions &opts_;
  int64_t opset_ = 0;
  const onnx::NodeProto *node_ = nullptr;
  Graph g_;
  WeightTable weights_;
  std::map<std::string, ValueRef> values_;
  ConstantTable constants_;
  std::set<std::string> taken_;
  /// Initializers quarry cannot decode (float16, strings, ...): only kept
  /// nodes read them.
  std::map<std::string, const onnx::TensorProto *> undecoded_;
  /// Element types of the values that are not float32 (kept nodes' outputs
  /// and integer graph inputs), by ONNX name.
  std::map<std::string, int32_t> elem_;
  /// Model::kept_onnx as it is built (onnx_kept.h).
  onnx::ModelProto kept_;
  std::set<std::string> kept_constants_;
  /// note_folded's nodes, by the name of their output.
  std::map<std::string, onnx::NodeProto> folded_;
  /// The constants recorded nodes read as constant operands whose folded
  /// node is recorded (once each).
  std::set<std::string> folded_constants_;
  /// The values of the untyped tail (its nodes' outputs, graph inputs
  /// that are not tensors), by ONNX name.
  std::set<std::string> untyped_;
  /// What the untyped tail reads from quarry's graph, in the order of the
  /// tail function's inputs.
  std::vector<ValueRef> tail_reads_;
  /// The values quarry holds as float32 that ONNX types otherwise, with
  /// that type, by ONNX name: bools as 0 and 1, quantized integers as
  /// their values; and each one cast to its type for kept nodes
  /// (onnx_typed).
  std::map<std::string, int32_t> held_;
  std::map<std::string, ValueRef> held_casts_;
  /// The graph inputs and node outputs the model types float16 or
  /// bfloat16, with that type, by ONNX name (note_half_outputs).
  std::map<std::string, int32_t> half_;
  /// The opset-17 forms of later nodes, while they are imported, and the
  /// names they took (opset17_form).
  std::deque<onnx::NodeProto> opset17_nodes_;
  std::set<std::string> opset17_names_;
  /// The nodes of the local functions' bodies as their calls run them,
  /// and the functions being inlined, outermost first.
  std::deque<onnx::NodeProto> inlined_;
  std::vector<const onnx::FunctionProto *> calling_;
  /// The bodies of unrolled loops, renamed for each iteration.
  std::deque<onnx::GraphProto> unrolled_;
};

/// Whether ONNX operator `op` gives outputs of its first operand's type
/// whose values are among its operands' (a Reshape, a Max): one quarry runs
/// in float32 on the integers it holds exactly, as on bools.
bool passes_type_through(std::string_view op);

/// x (op) y: ewadd/ewmul for equal shapes (the algebra's operators),
/// broadcast otherwise.
ValueRef binary(Importer &m, ops::BroadcastFn fn, ValueRef x, ValueRef y);
/// x with its axes in the order `perm` (x itself for the identity).
ValueRef transpose(Importer &m, ValueRef x, std::vector<int64_t> perm);
/// x with shape `dims` (x itself when it has them).
ValueRef reshape_to(Importer &m, ValueRef x, std::vector<int64_t> dims);
/// Pointwise function `fn` of x.
ValueRef pointwise(Importer &m, ops::PointwiseFn fn, ValueRef x);
/// Reduction `fn` of x over `axes`.
ValueRef reduce_over(Importer &m, ops::ReduceFn fn, ValueRef x,
                     const std::vector<int64_t> &axes, bool keepdims = true);
/// x[start:end:step] along `axis`.
ValueRef slice_along(Importer &m, ValueRef x, int64_t axis, int64_t start,
                     int64_t end, int64_t step = 1);
/// What ONNX operator `op`'s handler computes as a node reading `inputs`
/// (names of values or constants), with `attrs`, into `out`; the node is
/// named as the current one, so that messages name that.
ValueRef run_node(Importer &m, const std::string &op,
                  const std::vector<std::string> &inputs,
                  const std::string &out,
                  const std::vector<onnx::AttributeProto> &attrs = {});

/// Slice's attributes for the current node of an input of rank `rank`:
/// from attributes before opset 10, constant inputs after; axes and steps
/// defaulted, axes normalized. Shared by the handler and the folder.
Attrs slice_attrs(Importer &m, int rank);

/// The handler of each supported ONNX operator type.
const std::map<std::string, Handler, std::less<>> &onnx_handlers();
/// Adds the 2-D window operators' handlers: Conv, ConvTranspose, the pools
/// and BatchNormalization (onnx_import_windows.cc).
void add_window_handlers(std::map<std::string, Handler, std::less<>> &table);
/// Adds Resize, Upsample, GridSample and Pad (onnx_import_resize_pad.cc).
void add_resize_pad_handlers(
    std::map<std::string, Handler, std::less<>> &table);
/// Adds the handlers that state an operator with several quarry operators
/// (onnx_import_composite.cc), and lifts the window operators' handlers to
/// take 1-D operands.
void add_composite_handlers(std::map<std::string, Handler, std::less<>> &table);
/// Comparisons, Not/And/Or/Xor and Where on ONNX's booleans held as 0 and 1
/// (onnx_import_logic.cc).
void add_logic_handlers(std::map<std::string, Handler, std::less<>> &table);
/// RNN, GRU and LSTM unrolled over their fixed sequence length
/// (onnx_import_recurrent.cc).
void add_recurrent_handlers(std::map<std::string, Handler, std::less<>> &table);
/// Conv, MaxPool and AveragePool over 5-D operands as their 2-D forms, one
/// per tap of the kernel's depth (onnx_import_3d.cc); wraps the 2-D
/// handlers in `table`.
void add_3d_window_handlers(std::map<std::string, Handler, std::less<>> &table);
/// QuantizeLinear and DequantizeLinear in float, the integers held as
/// float32 (onnx_import_quantized.cc).
void add_quantized_handlers(std::map<std::string, Handler, std::less<>> &table);
/// ScatterElements, ScatterND and Scatter at constant indices
/// (onnx_import_scatter.cc).
void add_scatter_handlers(std::map<std::string, Handler, std::less<>> &table);
/// DFT of a fixed length as products with constant cosine and sine
/// matrices (onnx_import_dft.cc).
void add_dft_handler(std::map<std::string, Handler, std::less<>> &table);
/// Einsum as transposes, reshapes, sums and batched products
/// (onnx_import_einsum.cc).
void add_einsum_handler(std::map<std::string, Handler, std::less<>> &table);

} // namespace quarry::onnx_io
