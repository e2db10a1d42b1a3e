//===- kernels.h - Which operators the cpu backend runs, and how -*- C++
//-*-===//
//
// CpuKernel<Def> lowers one node whose operator is `Def` (a core/ops struct)
// to a step that runs it. An operator without a specialization is not
// supported on this backend (when all its operands are static it is folded
// at prepare time instead, so it still works there). Adding an operator to
// the cpu backend means one specialization here and its make() in a .cc.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "lowering.h"

#include <oneapi/dnnl/dnnl.hpp>

namespace quarry::runtime::cpu {

struct Context {
  dnnl::engine engine{dnnl::engine::kind::cpu, 0};
  dnnl::stream stream{engine};
};

template <class Def> struct CpuKernel {
  static constexpr bool supported = false;
};

#define QUARRY_CPU_KERNEL(Def)                                                 \
  template <> struct CpuKernel<Def> {                                          \
    static constexpr bool supported = true;                                    \
    static Step make(Context &c, const Node &n, Operands in, Operands out);    \
  };

// Through oneDNN primitives (kernels_dnnl.cc).
QUARRY_CPU_KERNEL(ops::Conv2D)
QUARRY_CPU_KERNEL(ops::MatMul)
QUARRY_CPU_KERNEL(ops::Pool2DAvg)
QUARRY_CPU_KERNEL(ops::Pool2DMax)
QUARRY_CPU_KERNEL(ops::Relu)
QUARRY_CPU_KERNEL(ops::Sigmoid)
QUARRY_CPU_KERNEL(ops::Tanh)
QUARRY_CPU_KERNEL(ops::EwAdd)
QUARRY_CPU_KERNEL(ops::EwMul)
QUARRY_CPU_KERNEL(ops::BatchNorm)
QUARRY_CPU_KERNEL(ops::Concat)
QUARRY_CPU_KERNEL(ops::Transpose)
QUARRY_CPU_KERNEL(ops::Softmax)
// Direct loops over memory (kernels_loops.cc).
QUARRY_CPU_KERNEL(ops::Split)
QUARRY_CPU_KERNEL(ops::Reshape)
QUARRY_CPU_KERNEL(ops::ScalarMul)

#undef QUARRY_CPU_KERNEL

} // namespace quarry::runtime::cpu
