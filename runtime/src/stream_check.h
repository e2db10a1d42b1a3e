//===- stream_check.h - A multi-stream plan run on host threads -*- C++ -*-===//
//
// The plan a GPU runs on several streams (streams.h: waves, waits, buffers
// passed on along happens-before), run on the host to check it: one thread
// per stream, each running its stream's steps in order, a step waiting for
// the steps it waits for by an acquire on their completion flags and
// nothing else. Each step is its node's reference semantics, reading and
// writing the plan's buffers, each buffer a heap block of its own. So a
// buffer passed on too early is a data race ThreadSanitizer reports, a
// value read after its buffer took another shows as outputs that differ
// from one stream's, and every access stays visible to AddressSanitizer.
// For checking the plan, not for speed.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/runtime/backend.h"

#include <memory>
#include <string_view>

namespace quarry::runtime {

/// `g` planned for `backend` (named in errors) with its steps on at most
/// `streams` streams (0: as many as the widest wave needs), each stream's
/// steps run on a thread of its own.
std::unique_ptr<Executable> make_stream_check(const Graph &g,
                                              const Bindings<float> &weights,
                                              int streams,
                                              std::string_view backend);

} // namespace quarry::runtime
