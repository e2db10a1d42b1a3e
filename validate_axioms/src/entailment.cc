//===- entailment.cc - Lemmas, redundancy and consistency -----------------===//
#include "quarry/validate_axioms/entailment.h"

#include "quarry/core/fork_join.h"
#include "quarry/validate_axioms/finite_model.h"
#include "quarry/validate_axioms/injectivity.h"
#include "quarry/verify/unsat_core.h"
#include "quarry/verify/watchdog.h"
#include "quarry/verify/z3_encoding.h"

#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <chrono>

namespace quarry::validate_axioms {

namespace {

using Clock = std::chrono::steady_clock;

/// The tensor counts tried, in order, by the finite countermodel search.
constexpr int kModelSizes[] = {2, 3};

/// The consistency check is one query over every axiom; its proofs (two
/// tensors made equal) take longer than single entailments.
constexpr double kConsistencyFactor = 3;

/// The clock guard's factor (verify::guard_seconds). These queries, over
/// every axiom, spend a resource up to ten times as slowly as a rule's
/// proof (a lemma took 9.2 s for 1 s of resources), and a sanitizer build
/// half as fast again; the guard is only there to stop a runaway check,
/// so that it never decides an answer the resources would not.
constexpr double kGuardFactor = 30;

/// A minimisation try gets this many times the proof's Z3 resources, and
/// at least the floor (half a second of a time limit).
constexpr uint64_t kTryFactor = 2;
constexpr uint64_t kTryFloor = verify::kZ3ResourcesPerSecond / 2;

using verify::Axiom;
using verify::AxiomFile;

double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

/// What a query without a goal axiom asks of two fresh tensors x and y.
enum class Fresh {
  Equal,     ///< x = y
  DimsEqual, ///< dim(x, 0) = dim(y, 0) or dim(x, 1) = dim(y, 1)
};

/// One question: premises (guarded) and a negated goal in a fresh context.
class Query {
public:
  Query(const AxiomFile &file, const std::vector<size_t> &premises,
        const Axiom *goal, double timeout_s, Fresh fresh = Fresh::Equal)
      : file_(file), premises_(premises), goal_(goal), fresh_(fresh),
        start_(Clock::now()),
        deadline_(start_ +
                  std::chrono::milliseconds(static_cast<int64_t>(
                      verify::guard_seconds(timeout_s, kGuardFactor) * 1000))),
        timeout_s_(timeout_s), budget_(verify::resources_for(timeout_s)),
        enc_(ctx_, file, verify::ParamSort::Uninterpreted), solver_(ctx_) {}

  EntailmentResult run(std::string name) {
    EntailmentResult r;
    r.name = std::move(name);
    try {
      ask(r);
    } catch (const z3::exception &e) {
      r.answer = Answer::Unknown;
      r.detail = std::string("z3: ") + e.msg();
    }
    r.seconds = seconds_since(start_);
    return r;
  }

private:
  void ask(EntailmentResult &r) {
    for (size_t i : premises_) {
      z3::expr lit =
          ctx_.bool_const(("lit" + std::to_string(lits_.size())).c_str());
      solver_.add(z3::implies(lit, enc_.axiom(file_.axioms[i])));
      lits_.push_back(lit);
    }
    z3::expr lhs(ctx_), rhs(ctx_);
    if (goal_) {
      lhs = enc_.axiom_term(*goal_, goal_->lhs);
      rhs = enc_.axiom_term(*goal_, goal_->rhs);
      solver_.add(enc_.axiom_precondition(*goal_));
    } else if (fresh_ == Fresh::DimsEqual) {
      // Only this query has the dims statements: they slow Z3's search,
      // and no goal here rests on a `where` they would discharge.
      solver_.add(enc_.dim_facts());
      const z3::expr x = enc_.tensor_var("fresh x");
      const z3::expr y = enc_.tensor_var("fresh y");
      solver_.add(enc_.dim(x, 0) != enc_.dim(y, 0));
      lhs = enc_.dim(x, 1);
      rhs = enc_.dim(y, 1);
    } else {
      lhs = enc_.tensor_var("fresh x");
      rhs = enc_.tensor_var("fresh y");
    }
    solver_.add(lhs != rhs);
    solver_.add(enc_.distinct_literals());
    std::vector<size_t> all(lits_.size());
    for (size_t i = 0; i < all.size(); ++i)
      all[i] = i;
    const z3::check_result res = check(all, budget_);
    if (res == z3::sat) {
      r.answer = Answer::NotEntailed;
      r.detail = countermodel(lhs, rhs);
      return;
    }
    if (res == z3::unknown) {
      const std::string why =
          remaining() > 0
              ? "no proof within " + std::to_string(budget_) +
                    " Z3 resources (Z3: " + solver_.reason_unknown() + ")"
              : "no proof before the clock guard stopped Z3 at " +
                    std::to_string(verify::resources_used(solver_)) +
                    " of its " + std::to_string(budget_) +
                    " resources (the outcome may differ on "
                    "another machine)";
      // Dimensions are integers: there is no finite model to look for.
      if (!goal_ && fresh_ == Fresh::DimsEqual) {
        r.answer = Answer::Unknown;
        r.detail = why;
        return;
      }
      // A finite search cannot succeed when the premises force infinite
      // models; saying so is more useful than spending time on it.
      if (const auto inj = injective_operator(file_, premises_)) {
        r.answer = Answer::Unknown;
        r.detail =
            why + ", and no finite countermodel exists: " + describe(*inj);
        return;
      }
      // The search gets as much again as the proof, shared between the
      // sizes: a small model, when there is one, is found quickly.
      const double per_size = timeout_s_ / std::size(kModelSizes);
      for (int size : kModelSizes)
        if (auto model =
                find_finite_model(file_, premises_, goal_, size, per_size)) {
          r.answer = Answer::NotEntailed;
          r.detail = *model;
          return;
        }
      r.answer = Answer::Unknown;
      r.detail = why + " and no countermodel with 2 or 3 tensors";
      return;
    }
    r.answer = Answer::Entailed;
    const uint64_t proof = verify::resources_used(solver_);
    // Deletion: drop each premise whose absence keeps the goal entailed.
    // The minimisation has a budget of its own (the proof's, at most a few
    // times what the proof took), and each try twice the proof's
    // resources, so a premise whose removal makes the proof hard is kept
    // rather than stalling the rest. Resources, not time: the same set on
    // every machine and build.
    verify::CoreMinimization how;
    how.total = std::min<uint64_t>(budget_, std::max(kTryFloor, 6 * proof));
    how.per_try = static_cast<unsigned>(
        std::min<uint64_t>(budget_, std::max(kTryFloor, kTryFactor * proof)));
    how.seconds_left = [this] { return remaining(); };
    const verify::MinimizedCore min = verify::minimize_core(
        solver_, lits_, verify::unsat_core(solver_, lits_), how);
    const std::vector<size_t> &core = min.core;
    if (min.cut_short || remaining() <= 0)
      r.detail = "the entailing set may not be minimal (resource limit)";
    for (size_t i : core)
      r.by.push_back(file_.axioms[premises_[i]].name);
    std::sort(r.by.begin(), r.by.end());
  }

  double remaining() const {
    return std::chrono::duration<double>(deadline_ - Clock::now()).count();
  }

  z3::check_result check(const std::vector<size_t> &assumed, unsigned rlimit) {
    z3::expr_vector lits(ctx_);
    for (size_t i : assumed)
      lits.push_back(lits_[i]);
    return verify::check_within(solver_, lits, remaining(), rlimit);
  }

  std::string countermodel(const z3::expr &lhs, const z3::expr &rhs) {
    const z3::model m = solver_.get_model();
    std::string size = "?";
    const Z3_sort t = lhs.get_sort();
    for (unsigned i = 0; i < Z3_model_get_num_sorts(ctx_, m); ++i)
      if (Z3_is_eq_sort(ctx_, Z3_model_get_sort(ctx_, m, i), t)) {
        const z3::expr_vector u(ctx_, Z3_model_get_sort_universe(ctx_, m, t));
        size = std::to_string(u.size());
      }
    return "a model with " + size + " tensors where the left side is " +
           m.eval(lhs, true).to_string() + " and the right side " +
           m.eval(rhs, true).to_string();
  }

  const AxiomFile &file_;
  std::vector<size_t> premises_;
  const Axiom *goal_;
  Fresh fresh_;
  Clock::time_point start_, deadline_; ///< the clock guard's
  double timeout_s_; ///< as much again for the finite countermodel search
  unsigned budget_;  ///< Z3 resources of the proof
  z3::context ctx_;
  verify::Encoder enc_;
  z3::solver solver_;
  std::vector<z3::expr> lits_;
};

/// The premises of a first, quick consistency query when `op` is made
/// injective: those two axioms and every axiom equating two applications
/// of `op`. Such an axiom equates the operands as well, and when they
/// differ in structure (a wrong associativity) every two tensors follow
/// equal; among these few premises Z3 finds that at once, where among the
/// whole file its search may not within its resource limit.
std::vector<size_t> injectivity_premises(const AxiomFile &file,
                                         const InjectiveOperator &op) {
  std::vector<size_t> out;
  for (size_t i = 0; i < file.axioms.size(); ++i) {
    const Axiom &a = file.axioms[i];
    auto is_op = [&](const verify::Term &t) {
      return t.kind == verify::Term::Kind::Apply && t.name == op.op;
    };
    if (a.name == op.left_axiom || a.name == op.right_axiom ||
        (is_op(a.lhs) && is_op(a.rhs)))
      out.push_back(i);
  }
  return out;
}

std::vector<EntailmentResult>
run_all(const EntailmentOptions &opts, size_t n,
        const std::function<EntailmentResult(size_t)> &one) {
  std::vector<EntailmentResult> out(n);
  tbb::task_arena arena(std::max(1, opts.threads));
  const ForkJoin edges;
  arena.execute([&] {
    tbb::parallel_for(size_t(0), n,
                      edges.task([&](size_t i) { out[i] = one(i); }));
  });
  edges.joined();
  return out;
}

std::vector<size_t> axioms_only(const AxiomFile &file, size_t except) {
  std::vector<size_t> out;
  for (size_t i = 0; i < file.axioms.size(); ++i)
    if (!file.axioms[i].is_lemma && i != except)
      out.push_back(i);
  return out;
}

} // namespace

std::string_view answer_name(Answer a) {
  switch (a) {
  case Answer::Entailed:
    return "entailed";
  case Answer::NotEntailed:
    return "not-entailed";
  case Answer::Unknown:
    break;
  }
  return "unknown";
}

Answer answer_from_name(std::string_view name) {
  for (Answer a : {Answer::Entailed, Answer::NotEntailed, Answer::Unknown})
    if (answer_name(a) == name)
      return a;
  throw Error("unknown answer '" + std::string(name) + "'");
}

std::vector<EntailmentResult> check_lemmas(const AxiomFile &file,
                                           const EntailmentOptions &opts) {
  std::vector<size_t> lemmas;
  for (size_t i = 0; i < file.axioms.size(); ++i)
    if (file.axioms[i].is_lemma)
      lemmas.push_back(i);
  return run_all(opts, lemmas.size(), [&](size_t k) {
    // A lemma follows from the axioms and the lemmas before it.
    std::vector<size_t> premises = axioms_only(file, SIZE_MAX);
    for (size_t j = 0; j < k; ++j)
      premises.push_back(lemmas[j]);
    const Axiom &goal = file.axioms[lemmas[k]];
    return Query(file, premises, &goal, opts.timeout_s).run(goal.name);
  });
}

std::vector<EntailmentResult> check_redundancy(const AxiomFile &file,
                                               const EntailmentOptions &opts) {
  const std::vector<size_t> axioms = axioms_only(file, SIZE_MAX);
  return run_all(opts, axioms.size(), [&](size_t k) {
    const Axiom &goal = file.axioms[axioms[k]];
    return Query(file, axioms_only(file, axioms[k]), &goal, opts.timeout_s)
        .run(goal.name);
  });
}

EntailmentResult check_consistency(const AxiomFile &file,
                                   const EntailmentOptions &opts) {
  std::vector<size_t> all(file.axioms.size());
  for (size_t i = 0; i < all.size(); ++i)
    all[i] = i;
  const double limit_s = kConsistencyFactor * opts.timeout_s;
  double first_s = 0;
  if (const auto op = injective_operator(file, all)) {
    EntailmentResult first =
        Query(file, injectivity_premises(file, *op), nullptr, opts.timeout_s)
            .run("consistency");
    if (first.answer == Answer::Entailed)
      return first;
    first_s = first.seconds;
  }
  EntailmentResult r = Query(file, all, nullptr, limit_s).run("consistency");
  r.seconds += first_s;
  if (r.answer == Answer::Entailed || file.dim_facts.empty())
    return r;
  // The dims facts must hold of every application the axioms allow, or
  // with the axioms they force the dimensions of all tensors equal, and
  // any dimension precondition follows (axiom_file.h).
  EntailmentResult dims =
      Query(file, all, nullptr, limit_s, Fresh::DimsEqual).run("consistency");
  if (dims.answer != Answer::Entailed)
    return r;
  dims.detail = kDimsInconsistency;
  dims.seconds += r.seconds;
  return dims;
}

} // namespace quarry::validate_axioms
