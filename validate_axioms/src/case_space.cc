//===- case_space.cc - The sweep's cases of one axiom ---------------------===//
#include "quarry/validate_axioms/case_space.h"

#include <set>

namespace quarry::validate_axioms {

namespace {

void collect_names(const verify::DomainExpr &e, std::set<std::string> &out) {
  if (e.kind == verify::DomainExpr::Kind::Var)
    out.insert(e.name.substr(0, e.name.find('.')));
  for (const verify::DomainExpr &a : e.args)
    collect_names(a, out);
}

} // namespace

CaseSpace::CaseSpace(const verify::Axiom &a,
                     const std::vector<int64_t> &sizes) {
  if (!a.domain)
    return;
  std::set<std::string> in_shapes;
  for (const auto &[tensor, dims] : a.domain->shapes)
    for (const verify::DomainExpr &d : dims)
      collect_names(d, in_shapes);
  size_ = 1;
  for (const std::string &v : a.domain->value_order) {
    const bool parameter = a.sorts.count(v) != 0;
    std::vector<verify::DomainValue> set;
    if (!parameter && in_shapes.count(v)) {
      for (int64_t s : sizes)
        set.push_back({s});
      dims_.push_back(v);
    } else {
      set = a.domain->values.at(v);
    }
    size_ *= set.size();
    vars_.push_back(v);
    choices_.push_back(std::move(set));
  }
}

verify::Assignment CaseSpace::at(uint64_t k) const {
  verify::Assignment values;
  for (size_t i = vars_.size(); i-- > 0;) {
    const auto &set = choices_[i];
    values[vars_[i]] = set[k % set.size()];
    k /= set.size();
  }
  return values;
}

} // namespace quarry::validate_axioms
