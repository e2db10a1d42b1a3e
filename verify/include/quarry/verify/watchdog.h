//===- watchdog.h - Interrupt a Z3 context past its deadline --*- C++ -*-===//
//
// Z3's own timeout is not always honoured (quantifier instantiation can run
// past it), so every check that must end is also guarded by a watchdog
// thread that interrupts the context at the deadline; check_within puts
// the two together.
//
// A check's outcome should not depend on the machine, its load or the
// build (a sanitizer's allocator, instrumentation): checks are bounded by
// Z3's resource count, a time limit turned into resources at a fixed rate
// (resources_for), and the clock only stops a check that overruns its
// resources by far (guard_seconds).
//
//===----------------------------------------------------------------------===//
#pragma once

#include <z3++.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <limits>
#include <mutex>
#include <thread>

namespace quarry::verify {

/// Z3 resources ("rlimit count") a second of a time limit buys: what Z3
/// 4.8.12 spent per second of CPU on the 3-operator candidates it could not
/// prove (9 to 11.5 million, one AMD EPYC core, 2026).
inline constexpr uint64_t kZ3ResourcesPerSecond = 10'000'000;

/// The clock guard stops a check at this multiple of its time limit, plus
/// a second: Z3 does not count all its work alike, and on a few queries a
/// resource takes twenty times as long as on most.
inline constexpr double kClockGuardFactor = 4;

/// The resources of `seconds` of a time limit (at least 1).
inline unsigned resources_for(double seconds) {
  const double r =
      std::max(1.0, seconds * static_cast<double>(kZ3ResourcesPerSecond));
  return static_cast<unsigned>(
      std::min(r, static_cast<double>(std::numeric_limits<unsigned>::max())));
}

/// The clock guard of a time limit: only a check that overruns its
/// resources meets it. A caller whose queries spend resources more slowly
/// than most gives a larger factor.
inline double guard_seconds(double seconds, double factor = kClockGuardFactor) {
  return seconds * factor + 1;
}

/// Interrupts the context if a check outlives its deadline, so a solver
/// that ignores its own timeout still cannot hang the run.
class Watchdog {
public:
  using Clock = std::chrono::steady_clock;

  Watchdog(z3::context &ctx, Clock::time_point deadline)
      : thread_([this, &ctx, deadline] {
          std::unique_lock lock(mutex_);
          if (!cv_.wait_until(lock, deadline, [this] { return stop_; }))
            ctx.interrupt();
        }) {}
  ~Watchdog() {
    {
      std::lock_guard lock(mutex_);
      stop_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }
  Watchdog(const Watchdog &) = delete;
  Watchdog &operator=(const Watchdog &) = delete;

private:
  std::mutex mutex_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::thread thread_; // last: starts after the members it uses
};

/// solver.check(assumptions) bounded by `seconds`: Z3's timeout, and a
/// watchdog half a second later. Unknown when interrupted, or at once when
/// no time is left. A nonzero `rlimit` also bounds the check by Z3's
/// resource count, which, unlike time, is the same on every machine.
inline z3::check_result check_within(z3::solver &solver,
                                     const z3::expr_vector &assumptions,
                                     double seconds, unsigned rlimit = 0) {
  if (seconds <= 0)
    return z3::unknown;
  z3::params p(solver.ctx());
  p.set("timeout", static_cast<unsigned>(std::max(1.0, seconds * 1000)));
  p.set("rlimit", rlimit);
  solver.set(p);
  Watchdog guard(solver.ctx(),
                 Watchdog::Clock::now() +
                     std::chrono::milliseconds(
                         static_cast<int64_t>(seconds * 1000 + 500)));
  try {
    return solver.check(assumptions);
  } catch (const z3::exception &) {
    return z3::unknown; // interrupted
  }
}

/// Z3's resource count of `solver` so far (its "rlimit count" statistic).
inline uint64_t resources_used(const z3::solver &solver) {
  const z3::stats s = solver.statistics();
  for (unsigned i = 0; i < s.size(); ++i)
    if (s.key(i) == "rlimit count")
      return s.is_uint(i) ? s.uint_value(i)
                          : static_cast<uint64_t>(s.double_value(i));
  return 0;
}

} // namespace quarry::verify
