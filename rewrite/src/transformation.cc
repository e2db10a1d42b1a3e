//===- transformation.cc - Rules and fusions as graph rewrites ------------===//
#include "quarry/rewrite/transformation.h"

#include "quarry/rewrite/fusions.h"
#include "quarry/rewrite/splice.h"

namespace quarry::rewrite {

namespace {

bool preconditions_hold(const HostInfo &host, const Rule &rule,
                        const Match &m) {
  for (const DimEquality &c : rule.preconditions) {
    auto a = m.bindings.find(c.var), b = m.bindings.find(c.other_var);
    if (a == m.bindings.end() || b == m.bindings.end())
      return false;
    const TensorType *ta = host.graph->type(a->second);
    const TensorType *tb = host.graph->type(b->second);
    if (!ta || !tb || !c.holds(ta->shape, tb->shape))
      return false;
  }
  return true;
}

} // namespace

namespace {

Splice rule_splice(const Rule &rule, Match m) {
  // A rule that holds only for some shapes says which in its preconditions
  // (an ungrouped convolution's, say: axioms/taso.axioms), so a match that
  // meets them is a place the rule may rewrite.
  Splice s;
  s.pattern = &rule.target;
  s.bindings = std::move(m.bindings);
  s.replaced = std::move(m.outputs);
  return s;
}

} // namespace

std::optional<Graph> apply_rule(const HostInfo &host, const Rule &rule,
                                const Match &m) {
  if (!preconditions_hold(host, rule, m))
    return std::nullopt;
  return splice(*host.graph, rule_splice(rule, m));
}

std::vector<Graph> Transformation::apply(const HostInfo &host,
                                         size_t limit) const {
  std::vector<Graph> out;
  for_each(host, limit, [&](int, Graph &&g) { out.push_back(std::move(g)); });
  return out;
}

void Transformation::for_each_splice(
    const HostInfo &host, size_t limit,
    const std::function<void(int ordinal, OwnedSplice &&)> &f,
    const std::function<bool(const MatchSite &)> &keep) const {
  if (fusion) {
    std::vector<OwnedSplice> out = fusion(host);
    for (size_t i = 0; i < out.size() && i < limit; ++i)
      f(static_cast<int>(i), std::move(out[i]));
    return;
  }
  if ((needs & ~host.kinds).any())
    return;
  int ordinal = 0;
  for_each_match(host, rule->source, limit, [&](const MatchSite &site) {
    const int i = ordinal++;
    if (keep && !keep(site))
      return;
    Match m = site.to_match();
    if (preconditions_hold(host, *rule, m))
      f(i, {nullptr, rule_splice(*rule, std::move(m))});
  });
}

void Transformation::for_each(
    const HostInfo &host, size_t limit,
    const std::function<void(int ordinal, Graph &&)> &f) const {
  for_each_splice(host, limit, [&](int ordinal, OwnedSplice &&s) {
    if (auto g = splice(*host.graph, s.splice))
      f(ordinal, std::move(*g));
  });
}

std::optional<Graph> Transformation::apply_at(const HostInfo &host,
                                              int ordinal) const {
  if (ordinal < 0)
    return std::nullopt;
  if (fusion) {
    const std::vector<OwnedSplice> out = fusion(host);
    if (static_cast<size_t>(ordinal) >= out.size())
      return std::nullopt;
    return splice(*host.graph, out[ordinal].splice);
  }
  // Matches come in a fixed order, so the first ordinal+1 are the same.
  const std::vector<Match> matches =
      find_matches(host, rule->source, static_cast<size_t>(ordinal) + 1);
  if (static_cast<size_t>(ordinal) >= matches.size())
    return std::nullopt;
  return apply_rule(host, *rule, matches[ordinal]);
}

Transformation Transformation::of_rule(const Rule &rule,
                                       std::shared_ptr<const Rule> own) {
  return {rule.name, &rule, {}, std::move(own), operator_kinds(rule.source)};
}

std::vector<Transformation>
make_transformations(const RulePack &pack, const TransformationOptions &opts) {
  std::vector<Transformation> t;
  for (const Rule &r : pack.rules) {
    t.push_back(Transformation::of_rule(r));
    if (opts.reversed && reversible(r)) {
      auto back = std::make_shared<const Rule>(reversed_rule(r));
      t.push_back(Transformation::of_rule(*back, back));
    }
  }
  if (opts.fusions)
    for (const Fusion &f : fusions())
      t.push_back({std::string(f.name), nullptr, f.propose});
  if (opts.implementations)
    t.push_back({std::string(kImplementationsName), nullptr,
                 [offers = opts.implementations](const HostInfo &host) {
                   return propose_implementations(host, offers);
                 }});
  return t;
}

} // namespace quarry::rewrite
