//===- cpu_backend.h - Graphs on the CPU through oneDNN --------*- C++ -*-===//
//
// oneDNN 2.x primitives with the layouts oneDNN prefers: convolutions read
// and write blocked activations (nChw16c on AVX-512) and values stay in the
// layout their producer wrote, with reorders only where a consumer needs
// another (graph inputs and outputs are plain). Convolutions and matmuls
// run their elementwise successors (bias, activation, residual sum) as
// post-ops. Operators without a oneDNN primitive run as loops, or through
// their reference semantics, so every graph runs. Memory is planned once
// per graph, static weights are laid out once, and oneDNN supplies the
// threads (OpenMP). cpu/program.h has the details.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/runtime/backends.h"

namespace quarry::runtime {

/// `opts.threads` > 0 sets the process's OpenMP thread count.
std::unique_ptr<Backend> make_cpu_backend(const BackendOptions &opts = {});

/// Whether the cpu backend can run a (dynamic) node of this kind: every
/// operator, through the reference semantics where no kernel exists.
bool cpu_supports(OpKind kind);

/// Whether the cpu backend has a kernel of its own for this kind (rather
/// than the reference semantics).
bool cpu_has_kernel(OpKind kind);

} // namespace quarry::runtime
