//===- kernels_loops.cc - cpu operators that only move or scale data ------===//
//
// These run on the calling thread after waiting for the stream, since they
// read what earlier primitives wrote.
//
//===----------------------------------------------------------------------===//
#include "kernels.h"

#include <cstring>

namespace quarry::runtime::cpu {

Step CpuKernel<ops::Split>::make(Context &c, const Node &n, Operands in,
                                 Operands out) {
  const int axis = static_cast<int>(n.attrs.i(ops::Split::kAxis));
  const ops::AxisBlocks xb(in[0].shape(), axis);
  const int64_t axis_len = in[0].shape()[axis];
  std::vector<std::pair<float *, int64_t>> parts; // data, extent on axis
  for (const Operand &o : out)
    parts.push_back({o.data, o.shape()[axis]});
  return [src = in[0].data, parts, xb, axis_len, s = c.stream]() mutable {
    s.wait();
    int64_t offset = 0;
    for (auto [dst, len] : parts) {
      const int64_t block = len * xb.inner;
      for (int64_t o = 0; o < xb.outer; ++o)
        std::memcpy(dst + o * block, src + (o * axis_len + offset) * xb.inner,
                    sizeof(float) * block);
      offset += len;
    }
  };
}

Step CpuKernel<ops::Reshape>::make(Context &c, const Node &, Operands in,
                                   Operands out) {
  return
      [src = in[0].data, dst = out[0].data,
       bytes = sizeof(float) * in[0].shape().numel(), s = c.stream]() mutable {
        s.wait();
        std::memcpy(dst, src, bytes);
      };
}

Step CpuKernel<ops::ScalarMul>::make(Context &c, const Node &, Operands in,
                                     Operands out) {
  return [src = in[0].data, scalar = in[1].data, dst = out[0].data,
          n = in[0].shape().numel(), s = c.stream]() mutable {
    s.wait();
    const float k = *scalar;
    for (int64_t i = 0; i < n; ++i)
      dst[i] = src[i] * k;
  };
}

} // namespace quarry::runtime::cpu
