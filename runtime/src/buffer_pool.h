//===- buffer_pool.h - Buffers shared by values that never meet -*- C++ -*-===//
//
// Every backend gives each value it computes a buffer, and a buffer goes to
// a later value once every reader of the earlier one has run. Sizes are in
// whatever unit the backend counts (floats, bytes). Where steps run on
// several streams (streams.h), "has run" is what the streams' order and
// waits guarantee, not the order steps were issued in.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>
#include <limits>
#include <vector>

namespace quarry::runtime {

class HappensBefore;

/// One value's life over a sequence of steps.
struct BufferUse {
  /// The step that writes it; -1 for values set before the first step.
  int first = -1;
  /// The last step that reads it, or kForever for values kept to the end
  /// (graph inputs and outputs). A value nobody reads dies at `first`.
  int last = -1;
  int64_t size = 0;
  /// Every step that reads it (needed only with a HappensBefore).
  std::vector<int> readers;
  static constexpr int kForever = std::numeric_limits<int>::max();
};

/// The buffer of each use, in order. A buffer is released only after the
/// step that last reads it has placed its own results, so no step writes
/// into a buffer it reads. `sizes` receives each buffer's size: the largest
/// value it ever holds. With `order`, steps may run at once: a released
/// buffer goes to a value written by step s only when the step that wrote
/// its last value and every step that read it happen before s.
std::vector<int> assign_buffers(const std::vector<BufferUse> &uses,
                                std::vector<int64_t> &sizes,
                                const HappensBefore *order = nullptr);

} // namespace quarry::runtime
