//===- buffer_pool.cc - Best-fit reuse of buffers along a schedule --------===//
#include "buffer_pool.h"

#include "quarry/runtime/streams.h"

#include <algorithm>
#include <map>

namespace quarry::runtime {

namespace {

/// A pool of buffers, each sized to the largest value it ever holds.
class BufferPool {
public:
  explicit BufferPool(std::vector<int64_t> &sizes) : sizes_(sizes) {}

  /// The smallest free buffer that fits; else the largest free one, grown;
  /// else a new one. With `order`, only buffers whose last value's steps
  /// all happen before `step`.
  int acquire(int64_t size, int step, const HappensBefore *order) {
    int best = -1;
    for (size_t i = 0; i < free_.size(); ++i) {
      const int b = free_[i];
      if (order && !std::all_of(guard_[b].begin(), guard_[b].end(),
                                [&](int g) { return (*order)(g, step); }))
        continue;
      if (best < 0 || better(b, free_[best], size))
        best = static_cast<int>(i);
    }
    if (best < 0) {
      sizes_.push_back(size);
      guard_.emplace_back();
      return static_cast<int>(sizes_.size()) - 1;
    }
    const int b = free_[best];
    free_.erase(free_.begin() + best);
    sizes_[b] = std::max(sizes_[b], size);
    return b;
  }
  /// `b` is free once `steps` (its value's writer and readers) have run.
  void release(int b, std::vector<int> steps) {
    guard_[b] = std::move(steps);
    free_.push_back(b);
  }

private:
  bool better(int a, int b, int64_t need) const {
    const bool fa = sizes_[a] >= need, fb = sizes_[b] >= need;
    if (fa != fb)
      return fa;
    return fa ? sizes_[a] < sizes_[b] : sizes_[a] > sizes_[b];
  }
  std::vector<int64_t> &sizes_;
  std::vector<int> free_;
  std::vector<std::vector<int>> guard_; ///< per buffer, see release()
};

} // namespace

std::vector<int> assign_buffers(const std::vector<BufferUse> &uses,
                                std::vector<int64_t> &sizes,
                                const HappensBefore *order) {
  // Uses by the step that writes them, in order of appearance.
  std::map<int, std::vector<int>> written_at;
  for (size_t i = 0; i < uses.size(); ++i)
    written_at[uses[i].first].push_back(static_cast<int>(i));
  std::map<int, std::vector<int>> dies_after;
  std::vector<int> buffer(uses.size(), -1);
  BufferPool pool(sizes);
  auto release_until = [&](int step) {
    while (!dies_after.empty() && dies_after.begin()->first <= step) {
      for (int u : dies_after.begin()->second) {
        std::vector<int> steps = uses[u].readers;
        steps.push_back(uses[u].first);
        pool.release(buffer[u], std::move(steps));
      }
      dies_after.erase(dies_after.begin());
    }
  };
  for (const auto &[step, written] : written_at) {
    release_until(step - 1);
    for (int u : written) {
      buffer[u] = pool.acquire(uses[u].size, step, order);
      if (uses[u].last != BufferUse::kForever)
        dies_after[std::max(uses[u].last, step)].push_back(u);
    }
  }
  return buffer;
}

} // namespace quarry::runtime
