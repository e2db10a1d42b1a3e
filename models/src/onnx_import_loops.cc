//===- onnx_import_loops.cc - Loop and Scan as their iterations -----------===//
//
// A Loop whose trip count is a constant, or whose condition folds to a
// constant after every iteration, imports as its body's nodes once per
// iteration in its place, the iteration number a constant; a Scan (opset 9
// on) as its body once per slice of its scanned inputs, whose extent along
// the scanned axis is known. Iteration i's values are named
// "NODE/i/NAME" (NODE the node's name, or its first output's); the body's
// inputs are the values of the iteration before. The last iteration's
// carried values are the node's first outputs, and each scan output stacks
// its iterations' values along a new axis (Scan: scan_output_axes,
// reversed by scan_output_directions). A loop past kMaxUnrolledNodes
// nodes, a body holding subgraphs, a condition computed at run time or a
// scan output that is not a float tensor keeps the node
// (onnx_import_kept.cc) with nothing else changed.
//
//===----------------------------------------------------------------------===//
#include "onnx_importer.h"

#include <algorithm>

namespace quarry::onnx_io {

namespace {

/// Nodes of all iterations of one loop, at most.
constexpr int64_t kMaxUnrolledNodes = int64_t{1} << 16;

using Names = std::vector<std::string>;

/// Body `g` for one iteration: its inputs renamed to `bound`, every other
/// name it defines (initializers, node outputs, node names) prefixed with
/// `prefix`, the names it reads from outside as they are.
onnx::GraphProto iteration_of(const onnx::GraphProto &g, const Names &bound,
                              const std::string &prefix) {
  std::map<std::string, std::string> to;
  for (int i = 0; i < g.input_size(); ++i)
    to[g.input(i).name()] = bound[static_cast<size_t>(i)];
  for (const auto &t : g.initializer())
    to[t.name()] = prefix + t.name();
  for (const auto &n : g.node())
    for (const auto &o : n.output())
      if (!o.empty())
        to[o] = prefix + o;
  const auto rename = [&](std::string &v) {
    if (auto it = to.find(v); it != to.end())
      v = it->second;
  };
  onnx::GraphProto copy;
  for (onnx::TensorProto t : g.initializer()) {
    rename(*t.mutable_name());
    *copy.add_initializer() = std::move(t);
  }
  for (int k = 0; k < g.node_size(); ++k) {
    onnx::NodeProto n = g.node(k);
    n.set_name(prefix + (n.name().empty() ? std::to_string(k) : n.name()));
    for (auto &i : *n.mutable_input())
      rename(i);
    for (auto &o : *n.mutable_output())
      rename(o);
    *copy.add_node() = std::move(n);
  }
  for (onnx::ValueInfoProto o : g.output()) {
    rename(*o.mutable_name());
    *copy.add_output() = std::move(o);
  }
  return copy;
}

bool holds_subgraphs(const onnx::GraphProto &g) {
  for (const auto &n : g.node())
    for (const auto &a : n.attribute())
      if (a.has_g() || a.graphs_size() > 0)
        return true;
  return false;
}

/// The prefix of the current node's iterations.
std::string loop_prefix(const onnx::NodeProto &n) {
  return (n.name().empty() ? n.output(0) : n.name()) + "/";
}

/// A scalar constant of ONNX element type `elem`.
Constant scalar(int32_t elem, int64_t v) {
  Constant c;
  c.elem = elem;
  c.shape = Shape{};
  c.reals = {static_cast<double>(v)};
  c.ints = {v};
  return c;
}

/// `parts`, tensors of one shape, stacked along a new axis `axis` of the
/// result, in order.
ValueRef stack(Importer &m, const std::vector<ValueRef> &parts, int64_t axis) {
  std::vector<ValueRef> rows;
  for (ValueRef v : parts) {
    std::vector<int64_t> dims = m.shape(v).dims;
    dims.insert(dims.begin() + axis, 1);
    rows.push_back(reshape_to(m, v, dims));
  }
  if (rows.size() == 1)
    return rows[0];
  return m.add(OpKind::Concat, make_attrs(OpKind::Concat, {{"axis", axis}}),
               std::move(rows));
}

/// Constants of one shape and type, stacked along a new axis `axis`;
/// nullopt where they differ.
std::optional<Constant> stacked(const std::vector<const Constant *> &parts,
                                int64_t axis) {
  const Constant &first = *parts[0];
  Constant out;
  out.elem = first.elem;
  out.shape = first.shape;
  out.shape.dims.insert(out.shape.dims.begin() + axis,
                        static_cast<int64_t>(parts.size()));
  int64_t inner = 1, outer = 1;
  for (int d = 0; d < first.shape.rank(); ++d)
    (d < axis ? outer : inner) *= first.shape[d];
  const bool ints = first.ints.size() == first.reals.size();
  for (const Constant *c : parts)
    if (c->shape != first.shape || c->elem != first.elem ||
        (c->ints.size() == c->reals.size()) != ints)
      return std::nullopt;
  for (int64_t o = 0; o < outer; ++o)
    for (const Constant *c : parts)
      for (int64_t i = 0; i < inner; ++i) {
        out.reals.push_back(c->reals[o * inner + i]);
        if (ints)
          out.ints.push_back(c->ints[o * inner + i]);
      }
  return out;
}

} // namespace

void Importer::stack_output(int k, const Names &names, int64_t axis) {
  std::vector<const Constant *> constants;
  for (const std::string &name : names)
    if (const Constant *c = constants_.find(name))
      constants.push_back(c);
  // Constants (of any type) stack to a constant, as folding would.
  if (constants.size() == names.size())
    if (auto c = stacked(constants, axis)) {
      set_output_const(k, std::move(*c));
      return;
    }
  std::vector<ValueRef> parts;
  for (const std::string &name : names)
    parts.push_back(float_tensor(name));
  set_output(k, stack(*this, parts, axis));
}

bool Importer::unroll_loop(
    const std::map<std::string, Handler, std::less<>> &table) {
  const onnx::NodeProto &n = *node_;
  const onnx::AttributeProto *body_attr = attr("body");
  if (!body_attr || !body_attr->has_g() || n.input_size() < 2)
    return false;
  const onnx::GraphProto &body = body_attr->g();
  const int carried = n.input_size() - 2;
  const int scans = body.output_size() - 1 - carried;
  if (body.input_size() != 2 + carried || scans < 0 ||
      n.output_size() > carried + scans || holds_subgraphs(body))
    return false;
  std::optional<int64_t> trips;
  if (has_input(0)) {
    const Constant *m = const_in(0);
    if (!m || m->ints.size() != 1)
      return false;
    trips = std::max<int64_t>(0, m->ints[0]);
  }
  bool go = true;
  if (has_input(1)) {
    const Constant *c = const_in(1);
    if (!c || c->ints.size() != 1)
      return false;
    go = c->ints[0] != 0;
  }
  const int64_t most = kMaxUnrolledNodes / std::max(1, body.node_size());
  if (trips && go && *trips > most)
    return false;

  return attempt([&](int) {
    const std::string base = loop_prefix(n);
    std::string cond = has_input(1) ? n.input(1) : base + "cond";
    if (!has_input(1))
      constants_.set(cond, scalar(onnx::TensorProto::BOOL, 1));
    Names state(n.input().begin() + 2, n.input().end());
    std::vector<Names> scanned(static_cast<size_t>(scans));
    for (int64_t i = 0; go && (!trips || i < *trips); ++i) {
      if (i >= most)
        throw Error("the loop runs past " + std::to_string(most) +
                    " iterations");
      const std::string prefix = base + std::to_string(i) + "/";
      Names bound{prefix + "iteration", cond};
      constants_.set(bound[0], scalar(onnx::TensorProto::INT64, i));
      bound.insert(bound.end(), state.begin(), state.end());
      unrolled_.push_back(iteration_of(body, bound, prefix));
      const onnx::GraphProto &g = unrolled_.back();
      import_branch(g, table);
      cond = g.output(0).name();
      const Constant *c = constants_.find(cond);
      if (!c || c->ints.size() != 1)
        throw Error("the loop's condition is computed at run time");
      go = c->ints[0] != 0;
      for (int j = 0; j < carried; ++j)
        state[static_cast<size_t>(j)] = g.output(1 + j).name();
      for (int k = 0; k < scans; ++k)
        scanned[static_cast<size_t>(k)].push_back(
            g.output(1 + carried + k).name());
    }
    node_ = &n;
    loop_outputs(state, scanned, std::vector<int64_t>(scanned.size(), 0),
                 std::vector<int64_t>(scanned.size(), 0));
  });
}

bool Importer::unroll_scan(
    const std::map<std::string, Handler, std::less<>> &table) {
  const onnx::NodeProto &n = *node_;
  const onnx::AttributeProto *body_attr = attr("body");
  // Scan 8 reads a batch axis and sequence lengths: kept.
  if (opset_ < 9 || !body_attr || !body_attr->has_g())
    return false;
  const onnx::GraphProto &body = body_attr->g();
  const int64_t inputs = attr_int("num_scan_inputs", 0);
  const int states = n.input_size() - static_cast<int>(inputs);
  const int scans = body.output_size() - states;
  if (inputs < 1 || states < 0 || body.input_size() != n.input_size() ||
      scans < 0 || n.output_size() > states + scans || holds_subgraphs(body))
    return false;
  const auto list = [&](const char *name, size_t count) {
    auto v = attr_ints(name).value_or(std::vector<int64_t>(count, 0));
    if (v.size() != count)
      throw Error(std::string(name) + " has another count of values");
    return v;
  };
  return attempt([&](int) {
    const auto in_axes = list("scan_input_axes", static_cast<size_t>(inputs));
    const auto in_back =
        list("scan_input_directions", static_cast<size_t>(inputs));
    const auto out_axes = list("scan_output_axes", static_cast<size_t>(scans));
    const auto out_back =
        list("scan_output_directions", static_cast<size_t>(scans));
    std::vector<ValueRef> xs;
    std::vector<int64_t> axes;
    int64_t steps = -1;
    for (int m = 0; m < inputs; ++m) {
      const ValueRef x = float_tensor(n.input(states + m));
      const int r = shape(x).rank();
      if (in_axes[m] < -r || in_axes[m] >= r)
        throw Error("a scan axis is out of range");
      axes.push_back(in_axes[m] < 0 ? in_axes[m] + r : in_axes[m]);
      const int64_t extent = shape(x)[static_cast<int>(axes.back())];
      if (steps >= 0 && extent != steps)
        throw Error("the scanned inputs differ in length");
      steps = extent;
      xs.push_back(x);
    }
    if (steps < 1 || steps > kMaxUnrolledNodes / std::max(1, body.node_size()))
      throw Error("too few or too many iterations to unroll");
    const std::string base = loop_prefix(n);
    Names state(n.input().begin(), n.input().begin() + states);
    std::vector<Names> scanned(static_cast<size_t>(scans));
    for (int64_t t = 0; t < steps; ++t) {
      const std::string prefix = base + std::to_string(t) + "/";
      Names bound = state;
      for (int m = 0; m < inputs; ++m) {
        const int64_t at = in_back[m] ? steps - 1 - t : t;
        const ValueRef x = xs[static_cast<size_t>(m)];
        std::vector<int64_t> dims = shape(x).dims;
        dims.erase(dims.begin() + axes[m]);
        const std::string name = prefix + "scanned_" + std::to_string(m);
        values_[name] =
            reshape_to(*this, slice_along(*this, x, axes[m], at, at + 1), dims);
        bound.push_back(name);
      }
      unrolled_.push_back(iteration_of(body, bound, prefix));
      const onnx::GraphProto &g = unrolled_.back();
      import_branch(g, table);
      for (int j = 0; j < states; ++j)
        state[static_cast<size_t>(j)] = g.output(j).name();
      for (int k = 0; k < scans; ++k)
        scanned[static_cast<size_t>(k)].push_back(g.output(states + k).name());
    }
    node_ = &n;
    loop_outputs(state, scanned, out_axes, out_back);
  });
}

void Importer::loop_outputs(const Names &state,
                            const std::vector<Names> &scanned,
                            const std::vector<int64_t> &axes,
                            const std::vector<int64_t> &reversed) {
  const onnx::NodeProto &n = *node_;
  const int carried = static_cast<int>(state.size());
  for (int j = 0; j < carried && j < n.output_size(); ++j)
    if (!alias_value(state[static_cast<size_t>(j)], n.output(j)))
      throw Error("the body never computes a carried value");
  for (int k = 0; carried + k < n.output_size(); ++k) {
    if (n.output(carried + k).empty())
      continue;
    Names names = scanned[static_cast<size_t>(k)];
    if (names.empty())
      throw Error("a scan output of no iterations is empty");
    if (reversed[k])
      std::reverse(names.begin(), names.end());
    const int r = rank_of(names[0]) + 1;
    const int64_t axis = axes[k] < 0 ? axes[k] + r : axes[k];
    if (axis < 0 || axis >= r)
      throw Error("a scan output axis is out of range");
    stack_output(carried + k, names, axis);
  }
}

int Importer::rank_of(const std::string &name) {
  if (const Constant *c = constants_.find(name))
    return c->shape.rank();
  return shape(float_tensor(name)).rank();
}

ValueRef Importer::float_tensor(const std::string &name) {
  if (untyped_.count(name) || elem_.count(name) || held_.count(name) ||
      (constants_.contains(name) &&
       constants_.elem(name) != onnx::TensorProto::FLOAT))
    throw Error("'" + name + "' is not a float tensor quarry holds");
  if (!values_.count(name) && !constants_.contains(name))
    throw Error("nothing computes '" + name + "'");
  return in_const_as_value(name);
}

} // namespace quarry::onnx_io
