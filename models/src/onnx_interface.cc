//===- onnx_interface.cc - What an application sees of a model ------------===//
//
// An application feeds a model's inputs and reads its outputs by name,
// with their element types and shapes, and may check its opset and
// metadata. Two models with the same interface can replace each other.
//
//===----------------------------------------------------------------------===//
#include "onnx_interface.h"
#include "onnx_kept.h"

#include "quarry/core/error.h"
#include "quarry/models/onnx.h"

#include <algorithm>
#include <climits>
#include <map>

namespace quarry {

namespace {

/// A dimension as declared: its value, its symbolic name, or "?".
std::string dim_text(const onnx::TensorShapeProto::Dimension &d) {
  if (d.has_dim_value())
    return std::to_string(d.dim_value());
  if (d.has_dim_param() && !d.dim_param().empty())
    return d.dim_param();
  return "?";
}

/// The graph's inputs that an application feeds: not initializers.
std::vector<const onnx::ValueInfoProto *>
fed_inputs(const onnx::GraphProto &g) {
  std::set<std::string> init;
  for (const auto &t : g.initializer())
    init.insert(t.name());
  std::vector<const onnx::ValueInfoProto *> out;
  for (const auto &vi : g.input())
    if (!init.count(vi.name()))
      out.push_back(&vi);
  return out;
}

/// Differences of one declared value: its name, element type and, where
/// both declare a shape, its rank and each dimension both declare.
void compare_value(const std::string &what, const onnx::ValueInfoProto &a,
                   const onnx::ValueInfoProto &b,
                   std::vector<std::string> &out) {
  if (a.name() != b.name())
    out.push_back(what + " is named '" + b.name() + "', not '" + a.name() +
                  "'");
  const auto &ta = a.type().tensor_type(), &tb = b.type().tensor_type();
  if (a.type().has_tensor_type() != b.type().has_tensor_type() ||
      ta.elem_type() != tb.elem_type()) {
    out.push_back(what + " '" + a.name() + "' has element type " +
                  std::to_string(tb.elem_type()) + ", not " +
                  std::to_string(ta.elem_type()));
    return;
  }
  if (!ta.has_shape() || !tb.has_shape())
    return;
  if (ta.shape().dim_size() != tb.shape().dim_size()) {
    out.push_back(what + " '" + a.name() + "' has rank " +
                  std::to_string(tb.shape().dim_size()) + ", not " +
                  std::to_string(ta.shape().dim_size()));
    return;
  }
  for (int i = 0; i < ta.shape().dim_size(); ++i) {
    const std::string da = dim_text(ta.shape().dim(i)),
                      db = dim_text(tb.shape().dim(i));
    if (da != db && da != "?" && db != "?")
      out.push_back(what + " '" + a.name() + "' has dimension " +
                    std::to_string(i) + " " + db + ", not " + da);
  }
}

int64_t onnx_opset(const onnx::ModelProto &m) {
  for (const auto &op : m.opset_import())
    if (onnx_io::default_domain(op.domain()))
      return op.version();
  return 0;
}

std::vector<std::string> differences(const onnx::ModelProto &a,
                                     const onnx::ModelProto &b) {
  std::vector<std::string> out;
  const auto ia = fed_inputs(a.graph()), ib = fed_inputs(b.graph());
  if (ia.size() != ib.size())
    out.push_back(std::to_string(ib.size()) + " inputs, not " +
                  std::to_string(ia.size()));
  for (size_t i = 0; i < std::min(ia.size(), ib.size()); ++i)
    compare_value("input " + std::to_string(i), *ia[i], *ib[i], out);
  const auto &oa = a.graph().output(), &ob = b.graph().output();
  if (oa.size() != ob.size())
    out.push_back(std::to_string(ob.size()) + " outputs, not " +
                  std::to_string(oa.size()));
  for (int i = 0; i < std::min(oa.size(), ob.size()); ++i)
    compare_value("output " + std::to_string(i), oa[i], ob[i], out);
  // A model of other domains alone declares no ONNX opset to keep.
  if (onnx_opset(a) != 0 && onnx_opset(a) != onnx_opset(b))
    out.push_back("opset " + std::to_string(onnx_opset(b)) + ", not " +
                  std::to_string(onnx_opset(a)));
  std::map<std::string, std::string> ma, mb;
  for (const auto &p : a.metadata_props())
    ma[p.key()] = p.value();
  for (const auto &p : b.metadata_props())
    mb[p.key()] = p.value();
  if (ma != mb)
    out.push_back("metadata_props differ");
  if (a.doc_string() != b.doc_string())
    out.push_back("the model's doc_string differs");
  return out;
}

} // namespace

std::vector<std::string> interface_differences(std::string_view a,
                                               std::string_view b) {
  return differences(onnx_io::parse_model(a, "A"),
                     onnx_io::parse_model(b, "B"));
}

std::vector<std::string> operator_differences(std::string_view a,
                                              std::string_view b) {
  // Per operator, its count in a and in b.
  const onnx::ModelProto ma = onnx_io::parse_model(a, "A"),
                         mb = onnx_io::parse_model(b, "B");
  std::map<std::string, std::pair<int, int>> counts;
  for (const auto &n : ma.graph().node())
    ++counts[n.op_type()].first;
  for (const auto &n : mb.graph().node())
    ++counts[n.op_type()].second;
  std::vector<std::string> out;
  for (const auto &[op, ab] : counts)
    if (op != "Identity" && ab.first != ab.second)
      out.push_back(op + ": " + std::to_string(ab.second) + ", not " +
                    std::to_string(ab.first));
  return out;
}

} // namespace quarry

namespace quarry::onnx_io {

onnx::ModelProto parse_model(std::string_view bytes, const char *which) {
  onnx::ModelProto m;
  if (!m.ParseFromArray(bytes.data(), static_cast<int>(bytes.size())))
    throw Error(std::string("model ") + which +
                " is not an ONNX model (truncated or not protobuf)");
  return m;
}

namespace {

/// Renames value `from` to `to` wherever the main graph names it.
void rename_value(onnx::GraphProto &g, const std::string &from,
                  const std::string &to) {
  for (auto &n : *g.mutable_node()) {
    for (auto &i : *n.mutable_input())
      if (i == from)
        i = to;
    for (auto &o : *n.mutable_output())
      if (o == from)
        o = to;
  }
  for (auto &t : *g.mutable_initializer())
    if (t.name() == from)
      t.set_name(to);
  for (auto *vis :
       {g.mutable_input(), g.mutable_output(), g.mutable_value_info()})
    for (auto &vi : *vis)
      if (vi.name() == from)
        vi.set_name(to);
}

} // namespace

void restore_names(
    onnx::GraphProto &g, const std::map<std::string, std::string> &values,
    const std::map<std::string, std::string> &nodes,
    const std::map<std::string, std::pair<std::string, std::string>> &derived) {
  const std::set<std::string> used = names_held(g),
                              fixed = names_read_by_subgraphs(g);
  std::set<std::string> node_names;
  for (const auto &n : g.node())
    node_names.insert(n.name());
  std::map<std::string, std::string> renames;
  std::set<std::string> taken;
  for (const auto &[from, to] : values)
    if (from != to && used.count(from) && !fixed.count(from) &&
        !used.count(to) && taken.insert(to).second)
      renames.emplace(from, to);
  // What export added to write a value follows the value's new name.
  for (const auto &[name, base_suffix] : derived) {
    const auto &[base, suffix] = base_suffix;
    const auto base_to = renames.find(base);
    if (base_to == renames.end() || !used.count(name) || fixed.count(name) ||
        renames.count(name))
      continue;
    const std::string to = base_to->second + suffix;
    if (!used.count(to) && taken.insert(to).second)
      renames.emplace(name, to);
  }
  auto renamed = [&](std::string &name) {
    if (auto it = renames.find(name); it != renames.end())
      name = it->second;
  };
  for (auto &n : *g.mutable_node()) {
    for (auto &i : *n.mutable_input())
      renamed(i);
    const std::string before = n.output_size() ? n.output(0) : "";
    for (auto &o : *n.mutable_output())
      renamed(o);
    if (n.output_size() == 0 || n.output(0) == before)
      continue;
    // The ONNX node's own name; else, as export names nodes, its output's.
    auto named = nodes.find(n.output(0));
    const std::string &want =
        named != nodes.end() && !node_names.count(named->second) ? named->second
                                                                 : n.output(0);
    if (n.name() == before && node_names.insert(want).second)
      n.set_name(want);
  }
  for (auto &t : *g.mutable_initializer())
    if (auto it = renames.find(t.name()); it != renames.end())
      t.set_name(it->second);
  for (auto *vis :
       {g.mutable_input(), g.mutable_output(), g.mutable_value_info()})
    for (auto &vi : *vis)
      if (auto it = renames.find(vi.name()); it != renames.end())
        vi.set_name(it->second);
}

int elide_naming_identities(onnx::GraphProto &g,
                            const std::set<std::string> &naming) {
  const std::set<std::string> fixed = names_read_by_subgraphs(g);
  std::set<std::string> computed, outputs;
  for (const auto &n : g.node())
    computed.insert(n.output().begin(), n.output().end());
  for (const auto &vi : g.output())
    outputs.insert(vi.name());
  int dropped = 0;
  for (int k = 0; k < g.node_size();) {
    const onnx::NodeProto &n = g.node(k);
    const bool naming_only = n.op_type() == "Identity" && n.domain().empty() &&
                             n.input_size() == 1 && n.output_size() == 1 &&
                             naming.count(n.output(0));
    const std::string from = naming_only ? n.input(0) : "";
    if (!naming_only || !computed.count(from) || outputs.count(from) ||
        fixed.count(from)) {
      ++k;
      continue;
    }
    const std::string to = n.output(0);
    g.mutable_node()->DeleteSubrange(k, 1);
    rename_value(g, from, to);
    computed.erase(from);
    ++dropped;
  }
  return dropped;
}

void restore_interface(onnx::ModelProto &model, const onnx::ModelProto &kept,
                       const std::string &prefix) {
  const auto *iface = interface_record(kept);
  if (!iface)
    return; // not imported: quarry's names are the interface
  model.set_producer_name(kept.producer_name());
  model.set_producer_version(kept.producer_version());
  model.set_domain(kept.domain());
  model.set_model_version(kept.model_version());
  model.set_doc_string(kept.doc_string());
  *model.mutable_metadata_props() = kept.metadata_props();
  onnx::GraphProto &g = *model.mutable_graph();
  if (!kept.graph().name().empty())
    g.set_name(kept.graph().name());
  g.set_doc_string(kept.graph().doc_string());

  // Names a subgraph reads from here stay: renaming covers the main graph.
  const std::set<std::string> fixed = names_read_by_subgraphs(g);
  // Every name the graph holds, and the ones it must end with.
  std::set<std::string> used = names_held(g), wanted;
  used.insert(fixed.begin(), fixed.end());
  // Export's name of each input -> ONNX's: quarry's name, or that with
  // the prefix where a kept node uses the name for something else.
  std::set<std::string> exported;
  for (const auto &vi : g.input())
    exported.insert(vi.name());
  std::map<std::string, std::string> inputs;
  for (int k = 0; k < iface->input_size() && k < iface->output_size(); ++k) {
    const std::string &quarry = iface->input(k);
    inputs[exported.count(quarry) ? quarry : prefix + "_" + quarry] =
        iface->output(k);
  }
  for (const auto &vi : g.input())
    if (auto it = inputs.find(vi.name()); it != inputs.end())
      wanted.insert(it->second);
  const bool outputs_match = g.output_size() == kept.graph().output_size();
  if (outputs_match)
    for (const auto &vi : kept.graph().output())
      wanted.insert(vi.name());
  // Takes `name` for the interface: a value of quarry's holding it (an
  // initializer, an intermediate) moves out of the way. False when it is
  // held by what must not move.
  const auto take = [&](const std::string &name) {
    if (!used.count(name))
      return true;
    if (fixed.count(name))
      return false;
    for (const auto &vi : g.input())
      if (vi.name() == name)
        return false;
    std::string moved = prefix + "_" + name;
    for (int k = 2; used.count(moved) || wanted.count(moved); ++k)
      moved = prefix + "_" + name + "_" + std::to_string(k);
    rename_value(g, name, moved);
    used.insert(moved);
    return true;
  };
  std::vector<std::string> input_names;
  for (const auto &vi : g.input())
    input_names.push_back(vi.name());
  for (const std::string &now : input_names) {
    auto it = inputs.find(now);
    if (it == inputs.end() || it->second == now || fixed.count(now) ||
        !take(it->second))
      continue;
    rename_value(g, now, it->second);
    used.insert(it->second);
  }
  // In the declared order (the inputs only an untyped tail reads were
  // written after the others).
  std::map<std::string, int> position;
  for (int k = 0; k < iface->output_size(); ++k)
    position.emplace(iface->output(k), k);
  auto *in = g.mutable_input();
  std::stable_sort(in->begin(), in->end(), [&](const auto &x, const auto &y) {
    const auto px = position.find(x.name()), py = position.find(y.name());
    const int a = px == position.end() ? INT32_MAX : px->second;
    const int b = py == position.end() ? INT32_MAX : py->second;
    return a < b;
  });
  if (!outputs_match)
    return;
  std::set<std::string> graph_inputs, claimed;
  for (const auto &vi : g.input())
    graph_inputs.insert(vi.name());
  for (int k = 0; k < g.output_size(); ++k) {
    const std::string now = g.output(k).name();
    const std::string &declared = kept.graph().output(k).name();
    if (now == declared) {
      claimed.insert(now);
      continue;
    }
    if (claimed.count(declared))
      continue; // two outputs of one name
    // A copy of the value under its declared name is there already (what
    // an untyped tail reads).
    const bool copied = std::any_of(
        g.node().begin(), g.node().end(), [&](const onnx::NodeProto &n) {
          return n.op_type() == "Identity" && n.input_size() == 1 &&
                 n.input(0) == now && n.output_size() == 1 &&
                 n.output(0) == declared;
        });
    if (copied) {
      g.mutable_output(k)->set_name(declared);
      claimed.insert(declared);
      continue;
    }
    if (!take(declared))
      continue; // held by what must not move
    if (graph_inputs.count(now) || claimed.count(now) || fixed.count(now)) {
      // A graph input, another output or a value a subgraph reads keeps
      // its name: the output is a copy of it.
      onnx::NodeProto *copy = g.add_node();
      copy->set_op_type("Identity");
      copy->set_name(declared);
      copy->add_input(now);
      copy->add_output(declared);
      g.mutable_output(k)->set_name(declared);
      used.insert(declared);
    } else {
      rename_value(g, now, declared);
      used.insert(declared);
    }
    claimed.insert(declared);
  }
}

} // namespace quarry::onnx_io
