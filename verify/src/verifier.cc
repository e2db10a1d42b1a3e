//===- verifier.cc - Proving rules from axioms with Z3 --------------------===//
#include "quarry/verify/verifier.h"

#include "quarry/core/file_io.h"
#include "quarry/core/fork_join.h"
#include "quarry/core/hash.h"
#include "quarry/verify/refute.h"
#include "quarry/verify/unsat_core.h"
#include "quarry/verify/watchdog.h"
#include "quarry/verify/z3_encoding.h"

#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <limits>
#include <mutex>
#include <set>
#include <thread>

namespace quarry::verify {

namespace {

using Clock = std::chrono::steady_clock;

/// Z3's share, at most, of a rule whose only counterexamples change the
/// output shapes (in seconds of --timeout); the proofs such rules have take
/// a few milliseconds.
constexpr double kShapeCounterexampleSeconds = 0.25;

/// Seeded random shape mixes the counterexample search tries.
constexpr int kRandomShapeTries = 48;

/// A minimisation retry gets this many times the first proof's Z3
/// resources, and at least the floor (a few milliseconds of Z3).
constexpr uint64_t kRetryResourceFactor = 20;
constexpr uint64_t kRetryResourceFloor = 200000;

double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

/// One rule's proof attempt: the solver holds "literal => axiom" for every
/// axiom and candidate precondition, and the negated goal; checks assume
/// subsets of the literals.
class Attempt {
public:
  Attempt(const AxiomFile &axioms, const Rule &rule, const VerifyOptions &o)
      : axioms_(axioms), rule_(rule), opts_(o), start_(Clock::now()),
        deadline_(start_ + std::chrono::milliseconds(static_cast<int64_t>(
                               guard_seconds(o.timeout_s) * 1000))),
        budget_(resources_for(o.timeout_s)), enc_(ctx_, axioms), solver_(ctx_) {
  }

  RuleResult run() {
    RuleResult r;
    r.name = rule_.name;
    r.rule_hash = rule_hash(rule_);
    // A counterexample takes milliseconds, where Z3 spends its whole time
    // limit on a false rule (the axioms are quantified, so it rarely finds
    // a model). Values that differ where both sides give outputs of the
    // same shapes, and where every precondition the rule could be given
    // holds, refute the rule. Otherwise it may hold wherever its outputs'
    // shapes agree (a constant of fixed shape), or under a precondition (an
    // ungrouped convolution): Z3 gets a short attempt, and a proof stands
    // unless its preconditions hold at the counterexample's shapes.
    const std::vector<DimEquality> candidates = candidate_preconditions();
    std::optional<Counterexample> counterexample;
    if (opts_.refute || opts_.prove_first)
      counterexample = find_counterexample(
          rule_, opts_.seed, kRandomShapeTries,
          [&](const auto &shapes) { return all_hold(candidates, shapes); });
    if (counterexample && counterexample->values_differ &&
        all_hold(candidates, counterexample->shapes)) {
      r.outcome = Outcome::Refuted;
      r.detail = counterexample->description;
      r.seconds = seconds_since(start_);
      return r;
    }
    if (counterexample)
      budget_ = std::min(budget_, resources_for(kShapeCounterexampleSeconds));
    else if (opts_.prove_first)
      if (std::optional<RuleResult> first = opts_.prove_first(rule_)) {
        first->name = r.name;
        first->rule_hash = r.rule_hash;
        first->seconds = seconds_since(start_);
        return *first;
      }
    try {
      prove(r, candidates);
    } catch (const Error &e) {
      r.outcome = Outcome::Unproved;
      r.detail = e.what();
    } catch (const z3::exception &e) {
      r.outcome = Outcome::Unproved;
      r.detail = std::string("z3: ") + e.msg();
    }
    const bool proved = r.outcome != Outcome::Unproved;
    if (counterexample &&
        (!proved || (counterexample->values_differ &&
                     all_hold(r.preconditions, counterexample->shapes)))) {
      r.outcome = Outcome::Refuted;
      r.detail = counterexample->description;
      r.preconditions.clear();
      r.axioms.clear();
    }
    r.seconds = seconds_since(start_);
    return r;
  }

private:
  struct Literal {
    z3::expr lit;
    std::string axiom;              ///< set for axioms
    std::optional<DimEquality> pre; ///< set for candidate preconditions
  };

  void prove(RuleResult &r, const std::vector<DimEquality> &candidates) {
    z3::expr_vector differs(ctx_);
    bool identical = true;
    for (size_t i = 0; i < rule_.source.outputs().size(); ++i) {
      z3::expr s = enc_.value(rule_.source, rule_.source.outputs()[i]);
      z3::expr t = enc_.value(rule_.target, rule_.target.outputs()[i]);
      identical = identical && z3::eq(s, t);
      differs.push_back(s != t);
    }
    if (identical) {
      r.outcome = Outcome::Proved;
      return;
    }
    solver_.add(z3::mk_or(differs));
    // The dims facts relate the dimensions of the terms to those of the
    // rule's variables, and the rule's constants have theirs; neither are
    // axioms a proof reports.
    solver_.add(enc_.dim_facts());
    solver_.add(enc_.constant_dims());
    for (const Axiom &a : axioms_.axioms)
      add_literal(enc_.axiom(a), a.name, std::nullopt);
    for (const DimEquality &d : candidates)
      add_literal(enc_.dim(enc_.tensor_var(d.var), d.dim) ==
                      enc_.dim(enc_.tensor_var(d.other_var), d.other_dim),
                  "", d);

    std::vector<size_t> all(lits_.size());
    for (size_t i = 0; i < all.size(); ++i)
      all[i] = i;
    const z3::check_result res = check(all, remaining(), budget_);
    proof_cost_ = resources_used(solver_);
    r.z3_resources = proof_cost_;
    if (res != z3::unsat) {
      r.outcome = Outcome::Unproved;
      if (res == z3::sat)
        r.detail = "the axioms do not imply it (Z3 found a model)";
      else if (remaining() > 0)
        r.detail = "no proof within " + std::to_string(budget_) +
                   " Z3 resources (Z3: " + solver_.reason_unknown() + ")";
      else
        r.detail = "no proof before the clock guard stopped Z3 at " +
                   std::to_string(proof_cost_) + " of its " +
                   std::to_string(budget_) +
                   " resources (the outcome may differ on another machine)";
      return;
    }
    std::vector<z3::expr> lits;
    for (const Literal &l : lits_)
      lits.push_back(l.lit);
    std::vector<size_t> core = unsat_core(solver_, lits);
    std::sort(core.begin(), core.end());
    // Candidate preconditions are always minimised: a rule must not demand
    // more than its proof needs. Axioms only on request.
    core = minimize(lits, core,
                    [&](size_t i) { return lits_[i].pre.has_value(); });
    if (opts_.minimize_core)
      core = minimize(lits, core, [&](size_t i) { return !lits_[i].pre; });
    for (size_t i : core) {
      if (lits_[i].pre)
        r.preconditions.push_back(*lits_[i].pre);
      else
        r.axioms.push_back(lits_[i].axiom);
    }
    std::sort(r.axioms.begin(), r.axioms.end());
    r.outcome = r.preconditions.empty() ? Outcome::Proved
                                        : Outcome::ProvedWithPrecondition;
  }

  void add_literal(const z3::expr &fact, std::string axiom,
                   std::optional<DimEquality> pre) {
    z3::expr lit =
        ctx_.bool_const(("lit" + std::to_string(lits_.size())).c_str());
    solver_.add(z3::implies(lit, fact));
    lits_.push_back({lit, std::move(axiom), std::move(pre)});
  }

  /// dim(a,i) = dim(b,j) for distinct source variables a, b and the
  /// dimension pairs that axiom preconditions compare: what a rule's
  /// precondition may say.
  std::vector<DimEquality> candidate_preconditions() const {
    std::set<std::pair<int, int>> dims;
    for (const Axiom &a : axioms_.axioms) {
      for (const DimAtom &p : a.preconditions) {
        dims.emplace(p.dim, p.other_dim);
        dims.emplace(p.other_dim, p.dim);
      }
      for (const DimCondition &c : a.shape_conditions)
        if (c.b && c.a.tensor.kind == Term::Kind::Var &&
            c.b->tensor.kind == Term::Kind::Var) {
          const int i = static_cast<int>(c.a.index);
          const int j = static_cast<int>(c.b->index);
          dims.emplace(i, j);
          dims.emplace(j, i);
        }
    }
    std::vector<DimEquality> out;
    if (dims.empty())
      return out;
    std::vector<std::string> vars;
    for (const Node &n : rule_.source.nodes())
      if (n.is_variable())
        vars.push_back(n.name);
    // `dims` is symmetric, so unordered variable pairs cover every atom.
    for (size_t a = 0; a < vars.size(); ++a)
      for (size_t b = a + 1; b < vars.size(); ++b)
        for (auto [i, j] : dims)
          out.push_back(DimEquality{vars[a], i, vars[b], j});
    return out;
  }

  double remaining() const {
    return std::chrono::duration<double>(deadline_ - Clock::now()).count();
  }

  z3::check_result check(const std::vector<size_t> &assumed, double seconds,
                         unsigned rlimit) {
    z3::expr_vector lits(ctx_);
    for (size_t i : assumed)
      lits.push_back(lits_[i].lit);
    return check_within(solver_, lits, seconds, rlimit);
  }

  /// The literals `which` selects, minimised (unsat_core.h). A retry
  /// without a literal the proof needs is rarely refuted (the axioms are
  /// quantified), so it runs until stopped: each retry gets a multiple of
  /// the first proof's Z3 resources (the same on any machine, and a grouped
  /// convolution's precondition is settled in milliseconds rather than
  /// seconds), with the clock guard's remaining time as a backstop.
  std::vector<size_t> minimize(const std::vector<z3::expr> &lits,
                               std::vector<size_t> core,
                               std::function<bool(size_t)> which) {
    CoreMinimization how;
    how.per_try = retry_resources();
    how.droppable = std::move(which);
    how.take_smaller_core = true;
    how.seconds_left = [this] { return remaining(); };
    return minimize_core(solver_, lits, std::move(core), how).core;
  }

  unsigned retry_resources() const {
    const uint64_t r = std::max<uint64_t>(kRetryResourceFloor,
                                          proof_cost_ * kRetryResourceFactor);
    return static_cast<unsigned>(
        std::min<uint64_t>(r, std::numeric_limits<unsigned>::max()));
  }

  const AxiomFile &axioms_;
  const Rule &rule_;
  const VerifyOptions &opts_;
  Clock::time_point start_, deadline_; ///< the clock guard's
  unsigned budget_;                    ///< Z3 resources of the first check
  z3::context ctx_;
  Encoder enc_;
  z3::solver solver_;
  std::vector<Literal> lits_;
  uint64_t proof_cost_ = 0; ///< Z3 resources of the first proof
};

} // namespace

/// Revision 3: `dims` statements, candidate preconditions before the
/// counterexample search, explicit patterns for axioms with a `where`.
/// Revision 4: every check bounded by Z3's resource count, not the clock.
/// Revision 5: counterexamples also at shapes searched for to type-check
/// (shape_search.h), so a rule no uniform or random choice fits is tried.
/// Revision 6: a derivation from the known rules goes on from the source
/// when the target's end has nothing left to apply, so outcomes cached as
/// unproved by revision 5 may now be derived.
/// Revision 7: an axiom applies only where its shapes clause's conditions
/// hold (shape_conditions.h), and a rule's constants have their dimensions.
constexpr int kProverRevision = 7;

std::string prover_identity() {
  return "z3 " + std::string(Z3_get_full_version()) + ", quarry verify r" +
         std::to_string(kProverRevision);
}

std::string_view outcome_name(Outcome o) {
  switch (o) {
  case Outcome::Proved:
    return "proved";
  case Outcome::ProvedWithPrecondition:
    return "proved-with-precondition";
  case Outcome::Unproved:
    return "unproved";
  case Outcome::Refuted:
    return "refuted";
  }
  return "unproved";
}

Outcome outcome_from_name(std::string_view name) {
  for (Outcome o : {Outcome::Proved, Outcome::ProvedWithPrecondition,
                    Outcome::Unproved, Outcome::Refuted})
    if (outcome_name(o) == name)
      return o;
  throw Error("unknown outcome '" + std::string(name) + "'");
}

uint64_t rule_hash(const Rule &rule) {
  return hash_combine(rule.source.hash(), rule.target.hash());
}

RuleResult verify_rule(const AxiomFile &axioms, const Rule &rule,
                       const VerifyOptions &opts) {
  return Attempt(axioms, rule, opts).run();
}

std::vector<RuleResult>
verify_rules(const AxiomFile &axioms, const std::vector<Rule> &rules,
             const VerifyOptions &opts,
             const std::vector<std::optional<RuleResult>> &done,
             const std::function<void(const RuleResult &)> &on_result) {
  std::vector<RuleResult> out(rules.size());
  std::mutex report;
  auto one = [&](size_t i) {
    if (i < done.size() && done[i]) {
      out[i] = *done[i];
      return;
    }
    out[i] = verify_rule(axioms, rules[i], opts);
    out[i].index = i;
    if (on_result) {
      std::lock_guard lock(report);
      on_result(out[i]);
    }
  };
  tbb::task_arena arena(std::max(1, opts.threads));
  const ForkJoin edges;
  arena.execute([&] {
    tbb::parallel_for(tbb::blocked_range<size_t>(0, rules.size(), 1),
                      edges.task([&](const tbb::blocked_range<size_t> &r) {
                        for (size_t i = r.begin(); i != r.end(); ++i)
                          one(i);
                      }));
  });
  edges.joined();
  return out;
}

Rule record_proof(Rule rule, const RuleResult &result) {
  Provenance &p = rule.provenance;
  switch (result.outcome) {
  case Outcome::Proved:
  case Outcome::ProvedWithPrecondition:
    p.status = ProofStatus::Proved;
    break;
  case Outcome::Unproved:
    p.status = ProofStatus::Unproved;
    break;
  case Outcome::Refuted:
    p.status = ProofStatus::Refuted;
    break;
  }
  p.axioms = result.axioms;
  // No wall time: the same rules and axioms give a byte-identical pack on
  // any machine and run. Times go to the verify report instead.
  p.prove_seconds = 0;
  p.prover = result.derivation.empty() ? prover_identity()
                                       : std::string(kDerivationProver);
  p.prover_details = std::string(outcome_name(result.outcome)) +
                     (result.detail.empty() ? "" : ": " + result.detail);
  rule.preconditions = result.preconditions;
  return rule;
}

RulePack proved_pack(const RulePack &input,
                     const std::vector<RuleResult> &results,
                     const std::string &axioms_file) {
  if (results.size() != input.rules.size())
    throw Error("proved_pack: " + std::to_string(results.size()) +
                " results for " + std::to_string(input.rules.size()) +
                " rules");
  RulePack out;
  out.header = input.header;
  out.header.settings.emplace_back("verified_with", base_name(axioms_file));
  // The input's description says what the rules were before ("unverified"
  // candidates, say); keep it as a setting and say what they are now.
  if (!input.header.description.empty())
    out.header.settings.emplace_back("source_description",
                                     input.header.description);
  out.header.description =
      "rules proved by quarry verify from " + base_name(axioms_file);
  for (size_t i = 0; i < results.size(); ++i)
    if (results[i].outcome == Outcome::Proved ||
        results[i].outcome == Outcome::ProvedWithPrecondition)
      out.rules.push_back(record_proof(input.rules[i], results[i]));
  return out;
}

} // namespace quarry::verify
