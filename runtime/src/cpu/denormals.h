//===- denormals.h - Denormal floats taken as zero during a run -*- C++ -*-===//
//
// A float of magnitude below 2^-126 (a denormal) costs x86 cores a
// microcode assist in every multiply that reads or writes one: tens to a
// hundred times the cycles. Trained weights hold them (decayed to almost
// nothing), so do the activations they produce, and a convolution over
// them runs tens of times slower than over the same shapes with zeros.
// While a DenormalsAsZero lives, the calling thread and the OpenMP threads
// its parallel regions run on read denormal operands as zero (DAZ) and
// write zero for denormal results (FTZ), as TensorFlow's executor does by
// default and ONNX Runtime does on request (session.set_denormal_as_zero).
// The difference it makes is below 2^-126 per operand or result.
//
// The calling thread's mode is put back when the scope ends, so code that
// shares the thread (an embedding program, another engine timed beside
// quarry) keeps its own. The OpenMP workers are only reached inside a
// parallel region, so they are set once per calling thread (each has its
// own pool) and again when a scope asks for the other mode or more threads;
// workers created later inherit the mode of the thread creating them, which
// is the caller inside a scope.
//
//===----------------------------------------------------------------------===//
#pragma once

namespace quarry::runtime::cpu {

/// Whether this build can take denormals as zero (x86 with SSE; elsewhere
/// DenormalsAsZero changes nothing).
bool denormals_as_zero_supported();

/// Whether the calling thread now takes denormals as zero (both DAZ and
/// FTZ set).
bool denormals_as_zero_now();

class DenormalsAsZero {
public:
  /// `as_zero` false makes sure denormals are kept (an earlier scope may
  /// have set the workers); `threads` is the team the scope's parallel
  /// regions run on.
  DenormalsAsZero(bool as_zero, int threads);
  ~DenormalsAsZero();
  DenormalsAsZero(const DenormalsAsZero &) = delete;
  DenormalsAsZero &operator=(const DenormalsAsZero &) = delete;

private:
  unsigned saved_ = 0;
};

} // namespace quarry::runtime::cpu
