//===- minimize.h - A pack without the rules its others derive -*- C++ -*-===//
//
// Rules are taken smaller first (operators in source and target), then by
// name; each is left out when the rules kept so far derive it
// (derivation.h), and kept otherwise. Kept rules stay in the pack's order;
// each one left out is recorded with its derivation (RulePack::derived).
//
// The searches run in parallel, in fixed blocks of 64 rules in that order:
// each rule of a block is first searched with the rules kept before the
// block, and then, in order, searched again with those the block itself
// kept before it, when there are any and the first search found nothing.
// The pack is the same at any thread count.
//
// A derivation applies rules as the optimizer will (transformation.h):
// each kept rule forward and, where reversible(), backwards, unless
// `forward_only` (for `quarry optimize --forward-only`); and a rule's
// weight variable only to weights (a rule about weights does not rewrite
// an activation). Rules with shape preconditions are kept but never used
// as steps, since a derivation is found at one choice of shapes and their
// conditions may fail at others.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/rulepack/rule_pack.h"
#include "quarry/ruleset/derivation.h"

#include <functional>

namespace quarry::ruleset {

struct MinimizeOptions {
  DeriveOptions derive_options;
  bool forward_only = false; ///< kept rules derive only from source to target
  int threads = 0;           ///< 0: every core
};

struct MinimizeProgress {
  size_t done = 0, total = 0, kept = 0;
};

/// `pack` without the rules its kept rules derive; the header gains the
/// setting "minimized" ("kept N of M rules ...").
RulePack minimize_pack(
    const RulePack &pack, const MinimizeOptions &opts = {},
    const std::function<void(const MinimizeProgress &)> &progress = {});

} // namespace quarry::ruleset
