//===- onnx_exporter.h - One model written as ONNX -------------*- C++ -*-===//
//
// One Exporter writes one Model: the graph's interface and weights
// (onnx_export.cc), quarry's operators as ONNX nodes (onnx_export_nodes.cc)
// and the nodes kept from an imported model, converted to the export's
// opset where they changed (onnx_export_kept.cc).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "onnx_attrs.h"
#include "onnx_export_fusions.h"
#include "onnx_external_data.h"
#include "onnx_interface.h"
#include "onnx_kept.h"
#include "onnx_late_opsets.h"
#include "onnx_names.h"
#include "onnx_old_forms.h"
#include "onnx_restorable.h"
#include "onnx_tensor.h"

#include "quarry/core/evaluate.h"
#include "quarry/core/file_io.h"
#include "quarry/core/float_domain.h"
#include "quarry/core/memory_limit.h"
#include "quarry/models/onnx.h"

#include <onnx/checker.h>
#include <onnx/defs/schema.h>
#include <onnx/version_converter/convert.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <optional>
#include <set>

namespace quarry::onnx_io {

using Ints = std::vector<int64_t>;
using ops::BroadcastFn;
using ops::PointwiseFn;
/// The opset quarry's own nodes are written for.
inline constexpr int64_t kOpset = 14;

class Exporter {
public:
  Exporter(const Model &m, uint64_t seed);

  onnx::ModelProto run();

private:
  /// The exported name of `v`: a variable's own name, `t` and the node id
  /// for the rest. Names the kept nodes use keep them: those variables get
  /// the prefix, which no kept name starts with.
  std::string name(ValueRef v) const;
  std::string in(const Node &n, int k) const { return name(n.inputs[k]); }
  /// The name under which a recorded node written back computes `v` in
  /// its own type: name(v), unless v is a float16 or bfloat16 result that
  /// quarry's forms read too, which read its float32 copy under name(v).
  std::string typed_name(ValueRef v) const;
  /// A variable's own name, unless a kept node uses it.
  std::string variable_name(ValueRef v) const;
  /// A variable quarry holds as float32 that the model declared of another
  /// type: a graph input of bools (held as 0 and 1) or 8- and 16-bit
  /// integers, a float16 or bfloat16 graph input or weight. It goes out
  /// under its name in its own type, cast to float32 as `name`_float.
  bool cast_variable(const Node &n) const;

  /// The ONNX element type of `v`: float32 but for kept nodes' outputs,
  /// integer graph inputs and the typed results of recorded nodes.
  int32_t elem(ValueRef v) const;

  static void add_value_info(onnx::ValueInfoProto *vi, const std::string &nm,
                             const TensorType &t,
                             int32_t elem = onnx::TensorProto::FLOAT);

  onnx::NodeProto *node(const std::string &type, std::vector<std::string> in,
                        std::vector<std::string> out);
  template <class V>
  static void attr(onnx::NodeProto *n, const char *nm, const V &v) {
    onnx_io::add_attr(*n, nm, v);
  }
  /// `base` + `suffix`: the name of a value export adds to write `base`
  /// (a Reshape's shape, a composite's step), recorded so that it follows
  /// `base` when restore_names gives `base` its imported name.
  std::string derived(const std::string &base, const std::string &suffix);
  /// A new int64 initializer; returns its name.
  std::string ints(const std::string &hint, const Ints &v);
  std::string scalar(const std::string &hint, float v);

  /// Gives the values and weights the imported model named (onnx_kept.h:
  /// kNamesFunction) those names back, and the ONNX nodes that compute
  /// them their names, where quarry's graph still holds them.
  void restore_names();

  /// Where an operator with fused activation `act` writes its own
  /// result: `out` itself when there is none.
  static std::string before_activation(int64_t act, const std::string &out,
                                       const char *suffix);
  /// Applies a fused activation to `pre`, writing `out` (nothing when there
  /// is none: `pre` is `out`).
  void activation(int64_t act, const std::string &pre, const std::string &out);

  /// Per-side pads [t,l,b,r] of the algebra's same/valid windows.
  Ints algebra_pads(const Node &n, size_t stride_at, size_t pad_at,
                    const Shape &x, const Ints &k) const;

  void emit(int32_t id);

  /// A function ONNX has no operator for (GELU has one from opset 20,
  /// past quarry's own nodes' 17) as the operators that compute it: SiLU
  /// as x sigmoid(x), GELU as x (1 + erf(x / sqrt 2)) / 2.
  void emit_composite(PointwiseFn fn, const std::string &x,
                      const std::string &out);

  void emit_float_only(const Node &n, const std::string &out);

  /// The opset quarry's own live nodes need: 14, 16 for GridSample, 17
  /// for LayerNormalization; where every live operator is a node written
  /// back as recorded or a kept node, none (6 where a value is cast).
  int64_t least_opset(const std::vector<bool> &live) const;

  /// A recorded ONNX node written back in place of the operators import
  /// made of it (onnx_restorable.h).
  struct Restored {
    const onnx::NodeProto *record = nullptr;
    /// Per input: the value it reads; node -1 where absent or a constant.
    std::vector<ValueRef> operands;
    /// Per input: read in the model's own type, a graph input that quarry
    /// holds as float32 (its name as declared, not its float32 Cast).
    std::vector<bool> raw;
    /// Per output: the value computing it; node -1 where unnamed.
    std::vector<ValueRef> results;
    /// The operators it stands for.
    std::vector<int32_t> nodes;
    /// Per input, then per output: the model's type of a value quarry
    /// holds as float32 (kTypesAttr), 0 for float32.
    std::vector<int32_t> types;
    /// The weights it reads in the model's dims, not quarry's, which
    /// nothing else reads (weight_dims_).
    std::map<int32_t, Ints> weight_dims;
  };
  /// The imported model's opset (its default domain's); 0 when it has
  /// none.
  int64_t source_opset() const;
  /// Chooses the recorded nodes to write back, those whose operator means
  /// the same at the export's opset as at the model's, and returns what
  /// is live once they are: not their operators, nor weights only those
  /// read (onnx_export_restored.cc). Fills restored_ and weight_dims_.
  std::vector<bool> choose_restored(const std::vector<bool> &live);
  /// restored_ for the records whose operator did not change between the
  /// model's opset and `opset`; the live nodes then.
  std::vector<bool> find_restored(const std::vector<bool> &live, int64_t opset);
  /// Drops the chosen records whose typed operands are no longer typed
  /// results, or whose typed results a node in quarry's forms reads;
  /// `readers` lists each node's live readers.
  void drop_mistyped(const std::vector<std::vector<int32_t>> &readers);
  /// Writes a chosen record's node, reading and computing the exported
  /// names of its values.
  void emit_restored(const Restored &r);
  /// Writes the node that folded at import into weight `id` (a
  /// DequantizeLinear of int8 constants, onnx_restorable.h) in place of
  /// `value`, its float32 initializer as export would write it, where the
  /// weight still holds what the node computed; false where it does not.
  bool emit_folded_weight(int32_t id, const Tensor<float> &value);
  /// Writes folded record `r` computing `out` (among folded_nodes_), and
  /// the constants it reads; false where its operator changed since the
  /// model's opset.
  bool emit_folded(const onnx::NodeProto &r, const std::string &out);
  /// `k` made the node `record` holds as the model wrote it: quarry's
  /// attributes dropped, and past opset 17 held from the checker of opset
  /// 17's forms (hold_late_form). Returns `k`.
  onnx::NodeProto &as_written(const onnx::NodeProto &record,
                              onnx::NodeProto &k) const;

  /// Settles names and the opset for the kept nodes of live opaque
  /// operators, writes the constants they read, and returns the opset of
  /// the export: `least`, or the imported model's when that is later
  /// (quarry's own nodes mean the same up to 17).
  int64_t prepare_kept(const std::vector<bool> &live, int64_t least);

  const onnx::NodeProto &kept_node(const Node &n) const;

  static std::vector<std::string> reads_of(const onnx::NodeProto &k);

  /// `probe` (kept nodes with their operands as inputs, the constants they
  /// read as initializers, at the imported model's opsets) converted to
  /// `opset` by ONNX's version converter: its graph. `what` names the
  /// nodes in an error.
  onnx::GraphProto convert(onnx::ModelProto probe, const std::string &what,
                           const std::string &changed, int64_t from,
                           int64_t opset) const;

  /// Adds the kept constants node `k` reads (by name, its subgraphs'
  /// outer references included) to `g`.
  void add_kept_constants(const onnx::NodeProto &k, onnx::GraphProto &g) const;

  /// The kept node of opaque operator `id` converted to `opset`: a model of
  /// it alone, its operands typed as quarry's graph types them.
  onnx::GraphProto convert_kept(int32_t id, const std::string &changed,
                                int64_t from, int64_t opset) const;

  /// Writes the nodes of `converted` with their names mapped by `rename`;
  /// the names the converter made are given quarry's prefix and `tag`, and
  /// its initializers that are not kept constants are written too.
  void emit_converted(const onnx::GraphProto &converted,
                      std::map<std::string, std::string> rename,
                      const std::string &tag);

  /// The kept node of opaque operator `id`, reading the exported names of
  /// its operands; what its subgraphs read from here is given its original
  /// name by an Identity first. A Cast of a result written back in the
  /// type it casts to writes nothing: its result is that one (same_as_).
  void emit_kept(int32_t id);
  /// The result opaque operator `id` casts to the type a recorded node
  /// written back computes it in (import's Cast of a bool quarry holds as
  /// float32, for a kept node that reads it as a bool); nullopt for any
  /// other node. Needs typed_.
  std::optional<ValueRef> cast_to_its_own_type(int32_t id) const;

  /// The untyped tail (onnx_kept.h) after quarry's nodes: what it reads
  /// from the graph (the graph's last outputs) under their original names,
  /// its nodes as they are, the graph inputs only it reads, and the model's
  /// outputs in their order, from the tail or from the graph's first
  /// outputs.
  void emit_tail();

  /// The graph's outputs, or, when the kept model names the imported
  /// model's outputs, those in their order: from the untyped tail as
  /// declared, else from the graph's first outputs, each cast to its
  /// declared element type where quarry holds it as float32 (a bool as 0
  /// and 1).
  void emit_outputs();

  /// Whether a float32 output is cast to `declared`: a numeric type other
  /// than float32 (a model may declare any number, and Cast takes few).
  static bool castable(int32_t declared);
  /// The graph's outputs outside the untyped tail, each with the element
  /// type the model declares for it (emit_outputs' pairing).
  std::vector<std::pair<ValueRef, int32_t>> declared_outputs() const;

  /// The untyped tail converted to the export's opset: a model of it
  /// alone, what it reads from the graph typed as the graph types it.
  onnx::GraphProto convert_tail(size_t first) const;

  const Graph &g_;
  const onnx::FunctionProto *tail_ = nullptr;
  std::string tail_changed_;
  int64_t source_opset_ = 0, export_opset_ = 0;
  std::map<int32_t, onnx::GraphProto> converted_;
  Bindings<float> values_;
  onnx::GraphProto *graph_ = nullptr;
  /// The bool Casts of `where` conditions written so far, by name.
  std::set<std::string> bool_conditions_;
  /// derived()'s names: name -> (base, suffix).
  std::map<std::string, std::pair<std::string, std::string>> derived_;
  onnx::ModelProto kept_;
  /// The recorded nodes written back, by the id of their last operator,
  /// where they are written.
  std::map<int32_t, Restored> restored_;
  /// Weights written in the dims a recorded node reads them in, not
  /// quarry's (a bias of [C], not [C,1,1]).
  std::map<int32_t, Ints> weight_dims_;
  /// Results of the recorded nodes written back in the model's type, not
  /// float32 (a bool, a quantized integer, float16): only recorded nodes
  /// and graph outputs read them, but for float16 and bfloat16, which are
  /// cast where quarry's forms meet them: to float32 (read_as_float_)
  /// after the node computing them, to their type (half_copies_) before a
  /// recorded node reading a float32 value.
  std::map<ValueRef, int32_t> typed_;
  std::set<ValueRef> read_as_float_;
  /// Results written under another's name: the Casts that change nothing
  /// (cast_to_its_own_type).
  std::map<ValueRef, ValueRef> same_as_;
  std::set<ValueRef> half_copies_;
  /// Graph inputs and weights quarry holds as float32 that only recorded
  /// nodes read, in their own type: written without their float32 Cast.
  std::set<int32_t> raw_only_;
  /// The kept model's constants, by name, and those written so far.
  std::map<std::string, const onnx::TensorProto *> kept_constants_;
  /// The records of kFoldedWeightsFunction, by the weight they made, and
  /// by the constant they computed where recorded nodes read that.
  std::map<std::string, const onnx::NodeProto *> folded_weights_;
  std::map<std::string, const onnx::NodeProto *> folded_constants_;
  /// The nodes emit_folded wrote, which go first in the graph.
  google::protobuf::RepeatedPtrField<onnx::NodeProto> folded_nodes_;
  std::set<std::string> written_constants_;
  std::map<std::string, int32_t> input_elem_;
  std::set<std::string> reserved_;
  onnx_io::ExportFusions fusions_;
  std::map<std::string, ValueRef> outer_binding_;
  /// The names an Identity was written to give a value, once each: the
  /// names the untyped tail or a kept node's subgraph reads it by. The
  /// Identities are dropped once all is written, the value taking the name
  /// where it can (elide_naming_identities).
  std::set<std::string> defined_outer_;
  std::string prefix_ = "t";
};

} // namespace quarry::onnx_io
