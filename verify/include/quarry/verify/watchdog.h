//===- watchdog.h - Interrupt a Z3 context past its deadline --*- C++ -*-===//
//
// Z3's own timeout is not always honoured (quantifier instantiation can run
// past it), so every check that must end is also guarded by a watchdog
// thread that interrupts the context at the deadline.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <z3++.h>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

namespace quarry::verify {

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

} // namespace quarry::verify
