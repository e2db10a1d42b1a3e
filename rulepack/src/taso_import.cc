//===- taso_import.cc - Rules from TASO's graph_subst.pb ------------------===//
//
// The mapping of operators and parameters is documented in taso_import.h.
//
//===----------------------------------------------------------------------===//
#include "quarry/rulepack/taso_import.h"

#include "quarry/core/error.h"
#include "quarry/core/file_io.h"
#include "taso_params.h"
#include "taso_rules.pb.h"

#include <google/protobuf/message.h>

#include <climits>
#include <map>
#include <set>

#ifndef QUARRY_RULES_TOOL_VERSION
#define QUARRY_RULES_TOOL_VERSION "unknown"
#endif

namespace quarry {

namespace {

using OpList = google::protobuf::RepeatedPtrField<GraphSubst::Operator>;

/// An operand as TASO writes it: output ts of operator op, or variable -op.
struct TasoRef {
  int64_t op;
  int64_t ts;
};

/// Builds one side of a rule, with errors prefixed by `where`
/// ("x.pb: rule 3: source ").
class SideBuilder {
public:
  SideBuilder(const OpList &ops, const std::vector<TasoRef> &outputs,
              std::string where)
      : ops_(ops), where_(std::move(where)) {
    declare_variables(outputs);
    for (int j = 0; j < ops.size(); ++j)
      add_op(j);
    for (size_t i = 0; i < outputs.size(); ++i) {
      const std::string at = "output " + std::to_string(i);
      g_.mark_output(resolve(outputs[i], ops.size(), at, ""));
    }
  }

  Graph take() { return std::move(g_); }

private:
  /// Declares x<k> for every variable -k this side uses, in increasing k, so
  /// the variables come out in the same order whatever order they are used.
  void declare_variables(const std::vector<TasoRef> &outputs) {
    std::set<int64_t> used;
    for (const auto &op : ops_)
      for (const auto &t : op.input())
        if (t.opid() < 0)
          used.insert(-int64_t{t.opid()});
    for (const TasoRef &r : outputs)
      if (r.op < 0)
        used.insert(-r.op);
    for (int64_t k : used)
      vars_[k] = g_.input("x" + std::to_string(k));
  }

  /// The value `r` names, where operators [0, limit) may be referred to.
  /// `what` names the reference in errors ("operand 1"), if `at` does not.
  ValueRef resolve(TasoRef r, int limit, const std::string &at,
                   std::string what) {
    what += what.empty() ? "refers" : " refers";
    if (r.op < 0) {
      if (r.ts != 0)
        fail(at, what + " to output " + std::to_string(r.ts) +
                     " of variable x" + std::to_string(-r.op) +
                     ", which has one");
      return vars_.at(-r.op);
    }
    if (r.op >= limit)
      fail(at, what + " to op " + std::to_string(r.op) +
                   (limit < ops_.size() ? ", which is not an earlier op"
                                        : ", which does not exist"));
    const auto &outs = outs_[r.op];
    if (r.ts < 0 || r.ts >= static_cast<int64_t>(outs.size()))
      fail(at, what + " to output " + std::to_string(r.ts) + " of op " +
                   std::to_string(r.op) + ", which has " +
                   std::to_string(outs.size()));
    return outs[r.ts];
  }

  void add_op(int j) {
    const GraphSubst::Operator &op = ops_[j];
    const std::string at = "op " + std::to_string(j);
    std::vector<ValueRef> inputs;
    for (int i = 0; i < op.input_size(); ++i)
      inputs.push_back(resolve({op.input(i).opid(), op.input(i).tsid()}, j, at,
                               "operand " + std::to_string(i)));
    try {
      const OpKind kind = taso::op_kind(op.type());
      Attrs attrs = taso::convert_params(kind, op.para(), op.input_size());
      outs_.push_back(g_.add(kind, std::move(attrs), std::move(inputs)));
    } catch (const Error &e) {
      fail(at, e.what());
    }
  }

  [[noreturn]] void fail(const std::string &at, const std::string &msg) {
    throw Error(where_ + at + ": " + msg);
  }

  const OpList &ops_;
  std::string where_;
  Graph g_;
  std::map<int64_t, ValueRef> vars_;
  std::vector<std::vector<ValueRef>> outs_;
};

Rule import_rule(const GraphSubst::Rule &r, int index,
                 const std::string &file) {
  const std::string where = file + ": rule " + std::to_string(index) + ": ";
  std::vector<TasoRef> src_outs, dst_outs;
  for (const auto &m : r.mappedoutput()) {
    src_outs.push_back({m.srcopid(), m.srctsid()});
    dst_outs.push_back({m.dstopid(), m.dsttsid()});
  }
  Rule rule;
  rule.name = "taso_" + std::to_string(index);
  rule.source = SideBuilder(r.srcop(), src_outs, where + "source ").take();
  rule.target = SideBuilder(r.dstop(), dst_outs, where + "target ").take();
  try {
    check_rule(rule);
  } catch (const Error &e) {
    throw Error(where + e.what());
  }
  rule.provenance.origin = "taso-import";
  rule.provenance.source_file = base_name(file);
  rule.provenance.source_index = index;
  return rule;
}

/// True when some message in the tree carries fields the schema does not
/// know: the bytes are protobuf, but not a TASO rule collection.
bool has_unknown_fields(const google::protobuf::Message &m) {
  const google::protobuf::Reflection *refl = m.GetReflection();
  if (!refl->GetUnknownFields(m).empty())
    return true;
  std::vector<const google::protobuf::FieldDescriptor *> fields;
  refl->ListFields(m, &fields);
  for (const auto *f : fields) {
    if (f->cpp_type() != google::protobuf::FieldDescriptor::CPPTYPE_MESSAGE)
      continue;
    if (!f->is_repeated()) {
      if (has_unknown_fields(refl->GetMessage(m, f)))
        return true;
      continue;
    }
    for (int i = 0; i < refl->FieldSize(m, f); ++i)
      if (has_unknown_fields(refl->GetRepeatedMessage(m, f, i)))
        return true;
  }
  return false;
}

} // namespace

RulePack import_taso_rules_from_bytes(std::string_view bytes,
                                      const std::string &file) {
  GraphSubst::RuleCollection coll;
  if (bytes.empty() || bytes.size() > INT_MAX ||
      !coll.ParseFromArray(bytes.data(), static_cast<int>(bytes.size())) ||
      has_unknown_fields(coll))
    throw Error(file + ": neither a quarry rule pack nor a TASO rule "
                       "collection");
  RulePack pack;
  for (int i = 0; i < coll.rule_size(); ++i)
    pack.rules.push_back(import_rule(coll.rule(i), i, file));
  const std::string base = base_name(file);
  pack.header.tool_version = QUARRY_RULES_TOOL_VERSION;
  pack.header.operators = operators_used(pack.rules);
  pack.header.settings = {{"importer", "taso"}, {"source", base}};
  pack.header.description =
      "rules imported from the TASO rule collection " + base;
  return pack;
}

RulePack import_taso_rules(const std::string &path) {
  return import_taso_rules_from_bytes(read_file_bytes(path), path);
}

} // namespace quarry
