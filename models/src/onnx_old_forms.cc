//===- onnx_old_forms.cc - A model written at an earlier opset ------------===//
#include "onnx_old_forms.h"

#include "onnx_attrs.h"
#include "onnx_external_data.h"
#include "onnx_kept.h"
#include "onnx_tensor.h"

#include "quarry/core/error.h"

#include <onnx/checker.h>
#include <onnx/defs/schema.h>
#include <onnx/shape_inference/implementation.h>

#include <algorithm>
#include <map>
#include <optional>
#include <set>

namespace quarry::onnx_io {

namespace {

using Dims = std::vector<int64_t>;

/// Initializers of more than this many values become graph inputs in a
/// skeleton.
constexpr uint64_t kSmall = 64;

} // namespace

onnx::ModelProto skeleton(const onnx::ModelProto &m) {
  onnx::ModelProto s;
  s.set_ir_version(m.ir_version());
  *s.mutable_opset_import() = m.opset_import();
  *s.mutable_functions() = m.functions();
  const onnx::GraphProto &g = m.graph();
  onnx::GraphProto &k = *s.mutable_graph();
  k.set_name(g.name());
  *k.mutable_node() = g.node();
  *k.mutable_input() = g.input();
  *k.mutable_output() = g.output();
  *k.mutable_value_info() = g.value_info();
  for (const auto &t : g.initializer()) {
    if (value_count(t) <= kSmall) {
      *k.add_initializer() = t;
      continue;
    }
    auto *vi = k.add_input();
    vi->set_name(t.name());
    auto *tt = vi->mutable_type()->mutable_tensor_type();
    tt->set_elem_type(t.data_type());
    auto *shape = tt->mutable_shape();
    for (int64_t d : t.dims())
      shape->add_dim()->set_dim_value(d);
  }
  return s;
}

namespace {

/// Every value's fixed shape that ONNX's inference finds in `skel`.
std::map<std::string, Dims> shapes_of(onnx::ModelProto skel) {
  try {
    onnx::shape_inference::InferShapes(skel);
  } catch (const std::exception &) {
  }
  std::map<std::string, Dims> out;
  const onnx::GraphProto &g = skel.graph();
  for (const auto *vis : {&g.input(), &g.value_info(), &g.output()})
    for (const auto &vi : *vis) {
      int32_t elem = 0;
      Shape shape;
      if (static_tensor_type(vi.type(), elem, shape))
        out.emplace(vi.name(), shape.dims);
    }
  for (const auto &t : g.initializer())
    out.emplace(t.name(), Dims(t.dims().begin(), t.dims().end()));
  return out;
}

/// Rewrites one graph's nodes into the forms of opset `to`.
class Writer {
public:
  Writer(onnx::GraphProto &g, int64_t to,
         const std::map<std::string, Dims> &shapes)
      : g_(g), to_(to), shapes_(shapes), used_(names_held(g)) {}

  /// False when some node cannot be said at `to`; `vouched` gets the
  /// first output of each node whose operator changed its meaning but
  /// not for these operands.
  bool run(std::set<std::string> &vouched) {
    std::vector<onnx::NodeProto> out;
    for (const auto &node : g_.node()) {
      onnx::NodeProto n = node;
      if (default_domain(n.domain()))
        if (!rewrite(n, out, vouched))
          return false;
      out.push_back(std::move(n));
    }
    g_.clear_node();
    for (auto &n : out)
      *g_.add_node() = std::move(n);
    drop_unread_constants();
    return true;
  }

private:
  const onnx::TensorProto *initializer(const std::string &name) const {
    for (const auto &t : g_.initializer())
      if (t.name() == name)
        return &t;
    return nullptr;
  }
  /// The values of constant input `i` of `n`, when it is an initializer.
  std::optional<Constant> constant(const onnx::NodeProto &n, int i) const {
    if (i >= n.input_size() || n.input(i).empty())
      return std::nullopt;
    const onnx::TensorProto *t = initializer(n.input(i));
    if (!t)
      return std::nullopt;
    try {
      return decode_tensor(*t);
    } catch (const Error &) {
      return std::nullopt;
    }
  }
  std::optional<Dims> shape(const std::string &name) const {
    if (auto it = extra_shapes_.find(name); it != extra_shapes_.end())
      return it->second;
    auto it = shapes_.find(name);
    return it == shapes_.end() ? std::nullopt : std::optional(it->second);
  }
  /// Takes off the inputs from `first` on (their values became
  /// attributes), noting the constants they named.
  void drop_inputs(onnx::NodeProto &n, int first) {
    for (int i = first; i < n.input_size(); ++i)
      if (!n.input(i).empty())
        dropped_.insert(n.input(i));
    if (first < n.input_size())
      n.mutable_input()->DeleteSubrange(first, n.input_size() - first);
  }
  std::string fresh(const std::string &hint) {
    std::string name = hint;
    for (int k = 2; used_.count(name); ++k)
      name = hint + "_" + std::to_string(k);
    used_.insert(name);
    return name;
  }

  /// Writes `n` in the form of opset `to` (nodes it needs first go to
  /// `before`); false where it cannot. A node it rewrote, or whose meaning
  /// it found the same for these operands, goes into `vouched`: the
  /// operator's signature changed since, not what the node computes.
  bool rewrite(onnx::NodeProto &n, std::vector<onnx::NodeProto> &before,
               std::set<std::string> &vouched) {
    const onnx::NodeProto was = n;
    if (!rewrite_form(n, before))
      return false;
    if (n.SerializeAsString() != was.SerializeAsString() || vouched_same(n))
      vouched.insert(n.output(0));
    return true;
  }

  /// Whether `n`, as it is, computes the same at `to`: an operator whose
  /// meaning changed only where its operands' shapes make it matter.
  bool vouched_same(const onnx::NodeProto &n) const {
    const std::string &op = n.op_type();
    if ((op == "Max" || op == "Min" || op == "Sum" || op == "Mean") && to_ < 8)
      return true; // rewrite_form checked the shapes are equal
    if ((op == "Softmax" || op == "LogSoftmax" || op == "Hardmax") && to_ < 13)
      return true; // over the last axis (rewrite_form)
    if (to_ < 7 && is_broadcasting(op))
      return true; // of equal shapes, or broadcast as asked
    // C broadcasts one way from 7 on.
    if (op == "Gemm" && to_ >= 7)
      return true;
    // Inference with one output: the same from 7 on (6 needs is_test).
    return op == "BatchNormalization" && n.output_size() == 1 && to_ >= 7 &&
           to_ < 15;
  }

  bool rewrite_form(onnx::NodeProto &n, std::vector<onnx::NodeProto> &before) {
    const std::string &op = n.op_type();
    if (op == "Pad" && to_ < 11)
      return pad(n);
    if (op == "Slice" && to_ < 10)
      return slice(n);
    if (op == "Clip" && to_ < 11)
      return clip(n);
    if ((op == "Squeeze" || op == "Unsqueeze") && to_ < 13)
      return axes_attr(n, op == "Unsqueeze");
    if (op == "ReduceSum" && to_ < 13)
      return axes_attr(n, false);
    if (op == "Split" && to_ < 13)
      return split(n);
    if (op == "Equal" && to_ < 11 && !compare_ints(n, before))
      return false;
    if (to_ < 7 && is_broadcasting(op) && !broadcast_attr(n, before))
      return false;
    if ((op == "Max" || op == "Min" || op == "Sum" || op == "Mean") && to_ < 8)
      return same_shapes(n);
    if ((op == "Softmax" || op == "LogSoftmax" || op == "Hardmax") && to_ < 13)
      return last_axis(n);
    if (op == "AveragePool" && to_ < 7)
      return no_count_include_pad(n);
    if (op == "BatchNormalization" && n.output_size() == 1)
      return to_ >= 7 || (to_ == 6 && in_test_mode(n));
    if (op == "ScatterElements" && to_ < 11)
      return scatter(n);
    if (op == "Resize" && to_ < 13)
      return resize(n);
    return true;
  }

  /// Resize took roi and scales as inputs it needs from 11 to 12: empty
  /// tensors where quarry gives sizes. Before 11 it was another operator.
  bool resize(onnx::NodeProto &n) {
    if (to_ < 11)
      return false;
    while (n.input_size() < 3)
      n.add_input("");
    for (int i = 1; i <= 2; ++i) {
      if (!n.input(i).empty())
        continue;
      onnx::TensorProto empty;
      empty.set_name(fresh(n.output(0) + (i == 1 ? "_roi" : "_scales")));
      empty.set_data_type(onnx::TensorProto::FLOAT);
      empty.add_dims(0);
      n.set_input(i, empty.name());
      *g_.add_initializer() = std::move(empty);
    }
    return true;
  }

  /// ScatterElements was Scatter before opset 11 (from 9), without a
  /// reduction.
  bool scatter(onnx::NodeProto &n) {
    for (const auto &a : n.attribute())
      if (a.name() == "reduction" && a.s() != "none")
        return false;
    if (to_ < 9)
      return false;
    n.set_op_type("Scatter");
    return true;
  }

  bool pad(onnx::NodeProto &n) {
    const auto pads = constant(n, 1);
    const auto value = constant(n, 2);
    if (to_ < 2 || !pads ||
        (n.input_size() > 2 && !n.input(2).empty() &&
         (!value || value->reals.size() != 1)))
      return false;
    drop_inputs(n, 1);
    add_attr(n, "pads", pads->ints);
    if (value)
      add_attr(n, "value", static_cast<float>(value->reals[0]));
    return true;
  }

  bool slice(onnx::NodeProto &n) {
    const auto starts = constant(n, 1), ends = constant(n, 2);
    const auto axes = constant(n, 3), steps = constant(n, 4);
    if (!starts || !ends ||
        (n.input_size() > 3 && !n.input(3).empty() && !axes))
      return false;
    if (n.input_size() > 4 && !n.input(4).empty() &&
        (!steps || std::any_of(steps->ints.begin(), steps->ints.end(),
                               [](int64_t s) { return s != 1; })))
      return false;
    drop_inputs(n, 1);
    add_attr(n, "starts", starts->ints);
    add_attr(n, "ends", ends->ints);
    if (axes)
      add_attr(n, "axes", axes->ints);
    return true;
  }

  bool clip(onnx::NodeProto &n) {
    const auto lo = constant(n, 1), hi = constant(n, 2);
    const bool has_lo = n.input_size() > 1 && !n.input(1).empty();
    const bool has_hi = n.input_size() > 2 && !n.input(2).empty();
    if (to_ < 6 || (has_lo && (!lo || lo->reals.size() != 1)) ||
        (has_hi && (!hi || hi->reals.size() != 1)))
      return false;
    drop_inputs(n, 1);
    if (has_lo)
      add_attr(n, "min", static_cast<float>(lo->reals[0]));
    if (has_hi)
      add_attr(n, "max", static_cast<float>(hi->reals[0]));
    return true;
  }

  /// Axes from input 1 to an attribute; before 11 they may not count from
  /// the end (`unsqueeze`: against the output's rank).
  bool axes_attr(onnx::NodeProto &n, bool unsqueeze) {
    if (n.input_size() < 2 || n.input(1).empty())
      return true; // no axes: the same default
    auto axes = constant(n, 1);
    if (!axes)
      return false;
    Dims a = axes->ints;
    if (to_ < 11 &&
        std::any_of(a.begin(), a.end(), [](int64_t x) { return x < 0; })) {
      const auto in = shape(n.input(0));
      if (!in)
        return false;
      const int64_t rank = static_cast<int64_t>(in->size()) +
                           (unsqueeze ? static_cast<int64_t>(a.size()) : 0);
      for (int64_t &x : a)
        x = x < 0 ? x + rank : x;
    }
    drop_inputs(n, 1);
    add_attr(n, "axes", a);
    return true;
  }

  bool split(onnx::NodeProto &n) {
    if (n.input_size() < 2 || n.input(1).empty())
      return true;
    const auto sizes = constant(n, 1);
    if (to_ < 2 || !sizes)
      return false;
    drop_inputs(n, 1);
    add_attr(n, "split", sizes->ints);
    return true;
  }

  static bool is_broadcasting(const std::string &op) {
    static const std::set<std::string> ops = {"Add",   "Sub",  "Mul",    "Div",
                                              "Pow",   "And",  "Or",     "Xor",
                                              "Equal", "Less", "Greater"};
    return ops.count(op) > 0;
  }

  /// Before opset 7 a binary operator broadcasts only its second operand,
  /// when asked to, and only over a run of the first's axes from `axis`:
  /// the second operand, its outer and inner 1s dropped (by a Reshape),
  /// must match that run.
  bool broadcast_attr(onnx::NodeProto &n,
                      std::vector<onnx::NodeProto> &before) {
    if (n.input_size() != 2)
      return false;
    auto a = shape(n.input(0)), b = shape(n.input(1));
    if (!a || !b)
      return false;
    if (*a == *b)
      return true;
    const bool commutes = n.op_type() == "Add" || n.op_type() == "Mul" ||
                          n.op_type() == "And" || n.op_type() == "Or" ||
                          n.op_type() == "Xor" || n.op_type() == "Equal";
    auto covers = [](const Dims &big, const Dims &small) {
      if (small.size() > big.size())
        return false;
      for (size_t i = 0; i < small.size(); ++i)
        if (small[i] != 1 && small[i] != big[big.size() - small.size() + i])
          return false;
      return true;
    };
    if (!covers(*a, *b)) {
      if (!commutes || !covers(*b, *a))
        return false;
      std::swap(*n.mutable_input(0), *n.mutable_input(1));
      std::swap(a, b);
    }
    // The run of b's axes between its outer and inner 1s.
    size_t lo = 0, hi = b->size();
    while (lo < hi && (*b)[lo] == 1)
      ++lo;
    while (hi > lo && (*b)[hi - 1] == 1)
      --hi;
    const Dims run(b->begin() + static_cast<std::ptrdiff_t>(lo),
                   b->begin() + static_cast<std::ptrdiff_t>(hi));
    const int64_t axis = static_cast<int64_t>(a->size() - b->size() + lo);
    for (size_t i = 0; i < run.size(); ++i)
      if (run[i] != (*a)[static_cast<size_t>(axis) + i])
        return false; // a 1 inside the run would need broadcasting too
    if (run != *b) {
      if (to_ < 5)
        return false; // Reshape took its shape as an attribute then
      const std::string shape_name = fresh(n.input(1) + "_opset6_shape");
      *g_.add_initializer() = encode_ints(shape_name, run);
      onnx::NodeProto r;
      r.set_op_type("Reshape");
      r.set_name(fresh(n.input(1) + "_opset6"));
      r.add_input(n.input(1));
      r.add_input(shape_name);
      r.add_output(r.name());
      n.set_input(1, r.name());
      before.push_back(std::move(r));
    }
    add_attr(n, "broadcast", int64_t{1});
    if (!run.empty())
      add_attr(n, "axis", axis);
    return true;
  }

  /// Equal took only integers and bools before opset 11; quarry writes it
  /// of float32 values that hold the model's integers, which it casts
  /// back.
  bool compare_ints(onnx::NodeProto &n, std::vector<onnx::NodeProto> &before) {
    for (int i = 0; i < n.input_size(); ++i) {
      onnx::NodeProto c;
      c.set_op_type("Cast");
      c.set_name(fresh(n.input(i) + "_as_int64"));
      c.add_input(n.input(i));
      c.add_output(c.name());
      if (to_ < 6)
        return false; // Cast's `to` was a string then
      add_attr(c, "to", int64_t{onnx::TensorProto::INT64});
      n.set_input(i, c.name());
      // The cast's shape is its operand's, for broadcasting.
      if (auto s = shape(c.input(0)))
        extra_shapes_[c.name()] = *s;
      before.push_back(std::move(c));
    }
    return true;
  }

  bool same_shapes(const onnx::NodeProto &n) {
    std::optional<Dims> first;
    for (const auto &in : n.input()) {
      auto s = shape(in);
      if (!s || (first && *s != *first))
        return false;
      first = s;
    }
    return true;
  }

  /// Softmax flattened from `axis` before 13: the same over the last axis.
  bool last_axis(onnx::NodeProto &n) {
    const auto in = shape(n.input(0));
    if (!in || in->empty())
      return false;
    const int64_t rank = static_cast<int64_t>(in->size());
    int64_t axis = -1;
    for (const auto &a : n.attribute())
      if (a.name() == "axis")
        axis = a.i();
    if (axis != -1 && axis != rank - 1)
      return false;
    for (auto &a : *n.mutable_attribute())
      if (a.name() == "axis")
        a.set_i(rank - 1);
    if (axis == -1 &&
        std::none_of(n.attribute().begin(), n.attribute().end(),
                     [](const auto &a) { return a.name() == "axis"; }))
      add_attr(n, "axis", rank - 1);
    return true;
  }

  /// AveragePool counted only the input's cells before opset 7: the same
  /// where it counts them (count_include_pad 0) or pads nothing.
  bool no_count_include_pad(onnx::NodeProto &n) {
    bool padded = false;
    for (const auto &a : n.attribute())
      if (a.name() == "pads")
        padded = std::any_of(a.ints().begin(), a.ints().end(),
                             [](int64_t p) { return p != 0; });
    auto *attrs = n.mutable_attribute();
    for (int i = 0; i < attrs->size(); ++i)
      if (attrs->Get(i).name() == "count_include_pad") {
        if (attrs->Get(i).i() != 0 && padded)
          return false;
        attrs->DeleteSubrange(i, 1);
        return true;
      }
    return true;
  }

  /// BatchNormalization 6 normalizes by the batch's statistics unless
  /// is_test: inference sets it.
  static bool in_test_mode(onnx::NodeProto &n) {
    add_attr(n, "is_test", int64_t{1});
    return true;
  }

  /// The constants whose inputs became attributes, where nothing reads
  /// them any more.
  void drop_unread_constants() {
    std::set<std::string> read;
    for (const auto &n : g_.node())
      for (const std::string &name : names_read(n))
        read.insert(name);
    for (const auto &o : g_.output())
      read.insert(o.name());
    auto *inits = g_.mutable_initializer();
    for (int i = inits->size() - 1; i >= 0; --i)
      if (dropped_.count(inits->Get(i).name()) &&
          !read.count(inits->Get(i).name()))
        inits->DeleteSubrange(i, 1);
  }

  onnx::GraphProto &g_;
  int64_t to_;
  const std::map<std::string, Dims> &shapes_;
  std::map<std::string, Dims> extra_shapes_;
  std::set<std::string> used_, dropped_;
};

/// The model's default-domain opset entry.
onnx::OperatorSetIdProto *onnx_opset(onnx::ModelProto &m) {
  onnx::OperatorSetIdProto *found = nullptr;
  for (auto &op : *m.mutable_opset_import())
    if (default_domain(op.domain()))
      found = &op;
  return found;
}

/// Rewrites `m` for opset `to` (its declared opset set too); false where a
/// node cannot be said there.
bool write_at(onnx::ModelProto &m, int64_t to,
              const std::map<std::string, Dims> &shapes,
              const std::set<std::string> &runnable) {
  onnx::OperatorSetIdProto *op = onnx_opset(m);
  const int64_t from = op->version();
  std::set<std::string> vouched;
  if (!Writer(*m.mutable_graph(), to, shapes).run(vouched))
    return false;
  // Below 7 ONNX Runtime has kernels only for what did not change up to 7
  // (Reshape 5, not Add 6): else only the model's own operators, which its
  // runtime ran.
  if (to < 7)
    for (const auto &n : m.graph().node())
      if (!runnable.count(n.op_type()) &&
          onnx::OpSchemaRegistry::Schema(n.op_type(), static_cast<int>(to),
                                         "") !=
              onnx::OpSchemaRegistry::Schema(n.op_type(), 7, ""))
        return false;
  for (const auto &n : m.graph().node())
    if (!changed_operator(n, from, to).empty() &&
        !(n.output_size() > 0 && vouched.count(n.output(0))))
      return false;
  op->set_version(to);
  return true;
}

} // namespace

bool lower_opset(onnx::ModelProto &model, int64_t opset,
                 const std::set<std::string> &runnable) {
  const onnx::OperatorSetIdProto *op = onnx_opset(model);
  if (!op || op->version() <= opset)
    return false;
  // Tried on the skeleton (the checker refuses an operator that did not
  // exist yet; type inference, a type it did not take yet), then done.
  onnx::ModelProto trial = skeleton(model);
  const auto shapes = shapes_of(trial);
  if (!write_at(trial, opset, shapes, runnable))
    return false;
  try {
    onnx::checker::check_model(trial);
    onnx::shape_inference::InferShapes(
        trial, onnx::OpSchemaRegistry::Instance(),
        onnx::ShapeInferenceOptions(/*check_type=*/true, /*error_mode=*/1));
  } catch (const std::exception &) {
    return false;
  }
  return write_at(model, opset, shapes, runnable);
}

} // namespace quarry::onnx_io
