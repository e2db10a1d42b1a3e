//===- graph_code.h - A graph of the search space in 48 bytes -*- C++ -*-===//
//
// Enumerated graphs travel between ranks and into shards as fixed-size
// records. A record names each operator by its choice index in the config
// and each operand by a slot: slots 0..V-1 are the config's variables, and
// every operator output takes the next slot in order (split takes two).
// The outputs of a graph are the operator outputs nothing consumes, listed
// in fingerprint order, so two equivalent graphs list corresponding outputs
// at the same positions.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/enumerate/gen_config.h"

#include <array>
#include <compare>
#include <cstdint>

namespace quarry {

inline constexpr int kMaxGenOps = 6;
inline constexpr int kMaxGenOutputs = 6;
inline constexpr int kMaxGenOperands = 3;
inline constexpr uint8_t kNoSlot = 0xff;

struct GenOpRef {
  uint8_t choice = 0;
  std::array<uint8_t, kMaxGenOperands> in{kNoSlot, kNoSlot, kNoSlot};
  friend auto operator<=>(const GenOpRef &, const GenOpRef &) = default;
};

/// One enumerated graph with its routing fingerprint and its global order.
struct GraphRecord {
  uint64_t fp = 0;  ///< hash of the outputs under the first evaluation
  uint64_t key = 0; ///< (work unit << 32) | index in unit: a global order
  std::array<GenOpRef, kMaxGenOps> ops{};
  std::array<uint8_t, kMaxGenOutputs> outputs{};
  uint8_t num_ops = 0;
  uint8_t num_outputs = 0;

  friend bool operator==(const GraphRecord &, const GraphRecord &) = default;
};
static_assert(sizeof(GraphRecord) == 48, "records are exchanged as bytes");

/// The graph a record encodes: variables it uses (with their shapes unless
/// `as_pattern`), its operators and its outputs in record order. Throws
/// quarry::Error when the record does not fit the config.
Graph decode_graph(const GenConfig &cfg, const GraphRecord &r,
                   bool as_pattern = false);

/// Number of slots the first `n` operators of `r` define after variables.
int slots_after(const GenConfig &cfg, const GraphRecord &r, int n);

} // namespace quarry
