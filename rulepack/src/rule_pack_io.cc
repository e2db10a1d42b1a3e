//===- rule_pack_io.cc - Reading and writing rule files -------------------===//
#include "quarry/rulepack/rule_pack_io.h"

#include "quarry/core/error.h"
#include "quarry/core/file_io.h"
#include "quarry/rulepack/graph_proto.h"
#include "quarry/rulepack/taso_import.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/stubs/logging.h>
#include <google/protobuf/unknown_field_set.h>

#include <climits>
#include <set>

namespace quarry {

namespace {

pb::ProofStatus status_to_proto(ProofStatus s) {
  switch (s) {
  case ProofStatus::Unknown:
    break;
  case ProofStatus::Proved:
    return pb::PROOF_PROVED;
  case ProofStatus::Unproved:
    return pb::PROOF_UNPROVED;
  case ProofStatus::Refuted:
    return pb::PROOF_REFUTED;
  }
  return pb::PROOF_UNKNOWN;
}

ProofStatus status_from_proto(int s) {
  switch (s) {
  case pb::PROOF_UNKNOWN:
    return ProofStatus::Unknown;
  case pb::PROOF_PROVED:
    return ProofStatus::Proved;
  case pb::PROOF_UNPROVED:
    return ProofStatus::Unproved;
  case pb::PROOF_REFUTED:
    return ProofStatus::Refuted;
  }
  throw Error("unknown proof status " + std::to_string(s));
}

void provenance_to_proto(const Provenance &p, pb::Provenance *m) {
  m->set_origin(p.origin);
  m->set_source_file(p.source_file);
  if (p.source_index)
    m->set_source_index(*p.source_index);
  m->set_status(status_to_proto(p.status));
  for (const auto &a : p.axioms)
    m->add_axioms(a);
  m->set_prove_seconds(p.prove_seconds);
  m->set_prover(p.prover);
  m->set_prover_details(p.prover_details);
}

Provenance provenance_from_proto(const pb::Provenance &m) {
  Provenance p;
  p.origin = m.origin();
  p.source_file = m.source_file();
  if (m.has_source_index())
    p.source_index = m.source_index();
  p.status = status_from_proto(m.status());
  p.axioms.assign(m.axioms().begin(), m.axioms().end());
  p.prove_seconds = m.prove_seconds();
  p.prover = m.prover();
  p.prover_details = m.prover_details();
  return p;
}

void header_to_proto(const RulePackHeader &h, pb::Header *m) {
  m->set_tool_version(h.tool_version);
  for (const auto &op : h.operators)
    m->add_operators(op);
  for (const auto &[key, value] : h.settings) {
    pb::Setting *s = m->add_settings();
    s->set_key(key);
    s->set_value(value);
  }
  m->set_seed(h.seed);
  m->set_description(h.description);
}

RulePackHeader header_from_proto(const pb::Header &m) {
  RulePackHeader h;
  h.tool_version = m.tool_version();
  h.operators.assign(m.operators().begin(), m.operators().end());
  for (const pb::Setting &s : m.settings())
    h.settings.emplace_back(s.key(), s.value());
  h.seed = m.seed();
  h.description = m.description();
  return h;
}

RulePack pack_from_proto(const pb::RulePack &m, const std::string &file) {
  if (m.format() != kRulePackFormat)
    throw Error(file + ": unsupported rule-pack format '" + m.format() +
                "' (this quarry reads " + std::string(kRulePackFormat) + ")");
  RulePack pack;
  pack.header = header_from_proto(m.header());
  pack.rules.reserve(m.rules_size());
  for (int i = 0; i < m.rules_size(); ++i) {
    const pb::Rule &r = m.rules(i);
    const std::string where = file + ": rule " + std::to_string(i) + ": ";
    Rule rule;
    rule.name = r.name();
    rule.source = graph_from_proto(r.source(), where + "source ");
    rule.target = graph_from_proto(r.target(), where + "target ");
    for (const pb::DimEquality &c : r.preconditions())
      rule.preconditions.push_back(
          {c.var(), c.dim(), c.other_var(), c.other_dim()});
    try {
      rule.provenance = provenance_from_proto(r.provenance());
      check_rule(rule);
    } catch (const Error &e) {
      throw Error(where + e.what());
    }
    pack.rules.push_back(std::move(rule));
  }
  std::set<std::string, std::less<>> names;
  for (const Rule &r : pack.rules)
    names.insert(r.name);
  for (int i = 0; i < m.derived_size(); ++i) {
    const pb::DerivedRule &d = m.derived(i);
    DerivedRule derived{
        d.name(), {d.steps().begin(), d.steps().end()}, d.shapes()};
    for (const std::string &step : derived.steps) {
      if (!names.count(step_rule(step)))
        throw Error(file + ": derived rule " + std::to_string(i) + " (" +
                    derived.name + ") is derived by '" + step +
                    "', which the pack does not hold");
    }
    pack.derived.push_back(std::move(derived));
  }
  return pack;
}

/// Our writer puts `format` first: tag 0x0a, a one-byte length, the text.
/// Checking the raw prefix also recognizes our packs when truncated.
bool has_format_prefix(std::string_view bytes) {
  constexpr std::string_view family = "quarry.rulepack.";
  return bytes.size() >= 2 && bytes[0] == '\x0a' &&
         bytes.substr(2).starts_with(family);
}

} // namespace

RuleFileFormat detect_rule_file_format(std::string_view bytes,
                                       const std::string &file) {
  if (bytes.empty())
    throw Error(file + ": empty file, not a rule pack");
  if (bytes.size() > INT_MAX) // protobuf's limit for one message
    throw Error(file + ": too large for a rule pack (2 GiB or more)");
  if (has_format_prefix(bytes))
    return RuleFileFormat::QuarryPack;
  // Any well-formed protobuf parses into an UnknownFieldSet; a pack written
  // by another tool may place `format` (field 1) anywhere.
  google::protobuf::UnknownFieldSet fields;
  if (!fields.ParseFromArray(bytes.data(), static_cast<int>(bytes.size())))
    throw Error(file + ": not a rule file (not readable as protobuf; "
                       "truncated or corrupt?)");
  for (int i = 0; i < fields.field_count(); ++i) {
    const auto &f = fields.field(i);
    if (f.number() == 1 &&
        f.type() == google::protobuf::UnknownField::TYPE_LENGTH_DELIMITED &&
        std::string_view(f.length_delimited()).starts_with("quarry.rulepack."))
      return RuleFileFormat::QuarryPack;
  }
  return RuleFileFormat::TasoCollection;
}

RulePack parse_rule_pack(std::string_view bytes, const std::string &file) {
  if (detect_rule_file_format(bytes, file) == RuleFileFormat::TasoCollection)
    return import_taso_rules_from_bytes(bytes, file);
  pb::RulePack m;
  {
    // protobuf logs its own complaint (e.g. a string that is not UTF-8);
    // the one-line error below says all the user needs.
    google::protobuf::LogSilencer quiet;
    if (!m.ParseFromArray(bytes.data(), static_cast<int>(bytes.size())))
      throw Error(file + ": corrupt quarry rule pack (truncated or damaged)");
  }
  return pack_from_proto(m, file);
}

RulePack read_rule_pack(const std::string &path) {
  return parse_rule_pack(read_file_bytes(path), path);
}

std::string serialize_rule_pack(const RulePack &pack) {
  pb::RulePack m;
  m.set_format(std::string(kRulePackFormat));
  header_to_proto(pack.header, m.mutable_header());
  for (size_t i = 0; i < pack.rules.size(); ++i) {
    const Rule &rule = pack.rules[i];
    try {
      check_rule(rule);
    } catch (const Error &e) {
      throw Error("rule " + std::to_string(i) + " (" + rule.name +
                  "): " + e.what());
    }
    pb::Rule *r = m.add_rules();
    r->set_name(rule.name);
    graph_to_proto(rule.source, r->mutable_source());
    graph_to_proto(rule.target, r->mutable_target());
    provenance_to_proto(rule.provenance, r->mutable_provenance());
    for (const DimEquality &c : rule.preconditions) {
      pb::DimEquality *e = r->add_preconditions();
      e->set_var(c.var);
      e->set_dim(c.dim);
      e->set_other_var(c.other_var);
      e->set_other_dim(c.other_dim);
    }
  }
  for (const DerivedRule &d : pack.derived) {
    pb::DerivedRule *e = m.add_derived();
    e->set_name(d.name);
    for (const std::string &step : d.steps)
      e->add_steps(step);
    e->set_shapes(d.shapes);
  }
  // Deterministic mode fixes the order of anything protobuf might otherwise
  // emit in hash order; fields are always written in field-number order.
  std::string out;
  {
    google::protobuf::io::StringOutputStream stream(&out);
    google::protobuf::io::CodedOutputStream coded(&stream);
    coded.SetSerializationDeterministic(true);
    if (!m.SerializeToCodedStream(&coded))
      throw Error("cannot serialize the rule pack");
  }
  return out;
}

void write_rule_pack(const RulePack &pack, const std::string &path) {
  std::string bytes;
  try {
    bytes = serialize_rule_pack(pack);
  } catch (const Error &e) {
    throw Error(path + ": " + e.what());
  }
  write_file_atomic(path, bytes);
}

} // namespace quarry
