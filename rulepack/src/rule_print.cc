//===- rule_print.cc - A readable listing of a rule pack ------------------===//
#include "quarry/rulepack/rule_print.h"

#include "quarry/core/text.h"

#include <cstdio>
#include <set>
#include <sstream>

namespace quarry {

namespace {

/// `text` with every line prefixed by `pad`.
std::string indent(const std::string &text, const std::string &pad) {
  std::string out;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos)
      end = text.size();
    out += pad + text.substr(start, end - start) + "\n";
    start = end + 1;
  }
  return out;
}

std::string join(const std::vector<std::string> &items) {
  std::string s;
  for (const auto &item : items)
    s += (s.empty() ? "" : ", ") + item;
  return s;
}

std::string seconds(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g s", s);
  return buf;
}

void print_provenance(std::ostringstream &os, const Provenance &p) {
  if (!p.source_file.empty() || p.source_index) {
    os << "  from: " << (p.source_file.empty() ? "?" : p.source_file);
    if (p.source_index)
      os << ", rule " << *p.source_index;
    os << "\n";
  }
  if (p.prover.empty() && p.axioms.empty() && p.prove_seconds == 0)
    return;
  os << "  proof: " << proof_status_name(p.status);
  if (!p.prover.empty())
    os << " by " << p.prover;
  if (p.prove_seconds > 0)
    os << " in " << seconds(p.prove_seconds);
  if (!p.axioms.empty())
    os << ", axioms: " << join(p.axioms);
  os << "\n";
  if (!p.prover_details.empty())
    os << indent(p.prover_details, "    ");
}

} // namespace

std::string print_rule(const Rule &rule) {
  std::ostringstream os;
  const Provenance &p = rule.provenance;
  os << "rule " << rule.name << "  [" << proof_status_name(p.status) << ", "
     << (p.origin.empty() ? "unknown origin" : p.origin) << "]\n";
  print_provenance(os, p);
  for (const DimEquality &c : rule.preconditions)
    os << "  precondition: " << c.str() << "\n";
  os << "  source:\n" << indent(print_graph(rule.source), "    ");
  os << "  target:\n" << indent(print_graph(rule.target), "    ");
  // Outputs correspond by position: the mapping is listed so that the
  // listing reads without knowing that convention.
  os << "  mapping:";
  const size_t n = rule.source.outputs().size();
  for (size_t i = 0; i < n; ++i)
    os << (i ? "," : "") << " source output " << i << " -> target output "
       << (i < rule.target.outputs().size() ? std::to_string(i) : "?");
  os << "\n";
  return os.str();
}

std::string print_rule_pack(const RulePack &pack) {
  std::ostringstream os;
  const RulePackHeader &h = pack.header;
  os << "rule pack: " << pack.rules.size() << " rules\n";
  if (!h.tool_version.empty())
    os << "tool version: " << h.tool_version << "\n";
  if (!h.operators.empty())
    os << "operators: " << join(h.operators) << "\n";
  for (const auto &[key, value] : h.settings)
    os << "setting: " << key << " = " << value << "\n";
  os << "seed: " << h.seed << "\n";
  if (!h.description.empty())
    os << "description: " << h.description << "\n";
  for (const Rule &rule : pack.rules)
    os << "\n" << print_rule(rule);
  if (!pack.derived.empty())
    os << "\nderived from the rules above (" << pack.derived.size()
       << " left out):\n";
  for (const DerivedRule &d : pack.derived)
    os << "  " << d.name << " " << derivation_text(d.steps, d.shapes) << "\n";
  return os.str();
}

std::string derivation_text(const std::vector<std::string> &steps,
                            std::string_view shapes) {
  std::string s = steps.empty() ? "by commutativity" : "by";
  for (size_t i = 0; i < steps.size(); ++i)
    s += (i ? ", " : " ") + steps[i];
  return s + " (at " + std::string(shapes) + ")";
}

namespace {

/// One side of a rule on one line: its statements, without declarations;
/// a lone statement that an output names is written as its expression.
std::string one_line(const Graph &g) {
  std::vector<std::string> statements;
  std::istringstream lines(print_graph(g));
  for (std::string line; std::getline(lines, line);) {
    if (line.empty() || line.rfind("input ", 0) == 0 ||
        line.rfind("weight ", 0) == 0)
      continue;
    statements.push_back(line);
  }
  // "t0 = expr" and "output t0": just expr.
  if (statements.size() == 2 && statements[1].rfind("output ", 0) == 0) {
    const std::string name = statements[1].substr(7);
    if (statements[0].rfind(name + " = ", 0) == 0)
      return statements[0].substr(name.size() + 3);
  }
  std::string s;
  for (const std::string &st : statements)
    s += (s.empty() ? "" : "; ") + st;
  return s;
}

} // namespace

std::string rule_text(const Rule &rule) {
  return one_line(rule.source) + " => " + one_line(rule.target);
}

std::string rule_family(const Rule &rule) {
  std::set<std::string> ops;
  for (const Graph *g : {&rule.source, &rule.target})
    for (const Node &n : g->nodes())
      if (!n.is_variable())
        ops.emplace(op_name(n.kind));
  std::string s;
  for (const std::string &op : ops)
    s += (s.empty() ? "" : "+") + op;
  return s;
}

} // namespace quarry
