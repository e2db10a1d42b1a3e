//===- case_space.cc - The sweep's cases of one axiom ---------------------===//
#include "quarry/validate_axioms/case_space.h"

#include <algorithm>
#include <set>

namespace quarry::validate_axioms {

namespace {

/// Untied cases are tried where every dimension takes one of this many of
/// the smallest sweep sizes: enough to break any tie, and few enough that
/// the untied cases stay a small multiple of the plain ones.
constexpr size_t kUntieSizes = 2;

/// At most this many of those cases, spread evenly over them: most untied
/// cases fail to type-check (typing forces most ties), and an axiom of
/// many dimensions would otherwise spend its sweep on them.
constexpr uint64_t kUntieCases = 256;

void collect_names(const verify::DomainExpr &e, std::set<std::string> &out) {
  if (e.kind == verify::DomainExpr::Kind::Var)
    out.insert(e.name.substr(0, e.name.find('.')));
  for (const verify::DomainExpr &a : e.args)
    collect_names(a, out);
}

} // namespace

CaseSpace::CaseSpace(const verify::Axiom &a, const std::vector<int64_t> &sizes)
    : sizes_(sizes) {
  if (!a.domain)
    return;
  std::set<std::string> in_shapes;
  for (const auto &[tensor, dims] : a.domain->shapes)
    for (const verify::DomainExpr &d : dims)
      collect_names(d, in_shapes);
  plain_ = small_ = 1;
  std::vector<verify::DomainValue> small_sizes;
  for (size_t i = 0; i < sizes.size() && i < kUntieSizes; ++i)
    small_sizes.push_back({sizes[i]});
  for (const std::string &v : a.domain->value_order) {
    const bool parameter = a.sorts.count(v) != 0;
    std::vector<verify::DomainValue> set, small;
    if (!parameter && in_shapes.count(v)) {
      for (int64_t s : sizes)
        set.push_back({s});
      small = small_sizes;
      dims_.push_back(v);
    } else {
      set = small = a.domain->values.at(v);
    }
    plain_ *= set.size();
    small_ *= small.size();
    vars_.push_back(v);
    choices_.push_back(std::move(set));
    small_choices_.push_back(std::move(small));
  }
  tied_ = verify::tied_positions(a);
  bases_ = std::min(small_, kUntieCases);
  untied_ = bases_ * tied_.size() * sizes.size();
}

verify::Assignment
CaseSpace::pick(const std::vector<std::string> &vars,
                const std::vector<std::vector<verify::DomainValue>> &choices,
                uint64_t k) {
  verify::Assignment values;
  for (size_t i = vars.size(); i-- > 0;) {
    const auto &set = choices[i];
    values[vars[i]] = set[k % set.size()];
    k /= set.size();
  }
  return values;
}

Case CaseSpace::at(uint64_t k) const {
  if (k < plain_)
    return {pick(vars_, choices_, k), {}};
  k -= plain_;
  const uint64_t size = k % sizes_.size();
  k /= sizes_.size();
  const verify::TiedPosition &t = tied_[k % tied_.size()];
  k /= tied_.size();
  return {pick(vars_, small_choices_, k * small_ / bases_),
          {{t.pos, sizes_[size]}}};
}

} // namespace quarry::validate_axioms
